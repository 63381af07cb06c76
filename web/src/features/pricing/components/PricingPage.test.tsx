import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, renderRoute, regularUser } from '../../../test/render-route';

const pricing = {
  success: true,
  message: '',
  data: [
    {
      model_name: 'claude-3',
      quota_type: 0,
      model_ratio: 1.5,
      completion_ratio: 5,
      model_price: 0,
      enable_groups: ['default'],
      is_priced: true,
      is_available: true,
    },
    {
      model_name: 'gpt-4o-mini',
      quota_type: 0,
      model_ratio: 0.075,
      completion_ratio: 4,
      model_price: 0,
      enable_groups: ['default', 'vip'],
      is_priced: true,
      is_available: true,
    },
    {
      model_name: 'mj_imagine',
      quota_type: 1,
      model_ratio: 0,
      completion_ratio: 1,
      model_price: 0.1,
      enable_groups: ['vip'],
      is_priced: true,
      is_available: true,
    },
  ],
  group_ratio: { default: 1, vip: 2 },
  usable_group: { default: '默认分组', vip: 'vip分组' },
};

describe('pricing page', { timeout: 60_000 }, () => {
  it('sorts per-call first, then gpt, then by name, with prices from the formula for the user group', async () => {
    fakeServer({ 'GET /api/pricing': () => ({ status: 200, body: pricing }) });
    await renderRoute('/pricing', { user: { ...regularUser, group: 'vip' } });
    expect(await screen.findByText('您的分组为：vip，分组倍率为：2')).toBeTruthy();
    await screen.findByText('gpt-4o-mini');
    const rows = [...document.querySelectorAll<HTMLElement>('tr[data-row-key]')];
    expect(rows.map((row) => row.dataset.rowKey)).toEqual(['mj_imagine', 'gpt-4o-mini', 'claude-3']);
    expect(within(rows[1]!).getByText('gpt-4o-mini')).toBeTruthy();
    expect(rows[0]!.textContent).toContain('模型价格：$0.2');
    expect(rows[1]!.textContent).toContain('提示 $0.3 / 1M tokens');
    expect(rows[1]!.textContent).toContain('补全 $1.2 / 1M tokens');
    expect(rows[1]!.textContent).toContain('补全倍率：4.000');
  });

  it('warns a visitor and prices with the default group ratio', async () => {
    fakeServer({ 'GET /api/pricing': () => ({ status: 200, body: pricing }) });
    await renderRoute('/pricing');
    expect(await screen.findByText('您还未登录，显示的价格为默认分组倍率：1')).toBeTruthy();
    expect((await screen.findByText('gpt-4o-mini')).closest('tr')!.textContent).toContain('提示 $0.15 / 1M tokens');
  });

  it('shows an unpriced model as "price not set", never $0, and marks availability as the server judged it', async () => {
    const models = [
      {
        model_name: 'gpt-4o-mini',
        quota_type: 0,
        model_ratio: 0.075,
        completion_ratio: 4,
        model_price: 0,
        enable_groups: ['default'],
        is_priced: true,
        is_available: true,
      },
      {
        model_name: 'mystery-model',
        quota_type: 0,
        model_ratio: null,
        completion_ratio: null,
        model_price: null,
        enable_groups: ['default'],
        is_priced: false,
        is_available: false,
      },
      {
        model_name: 'vip-model',
        quota_type: 0,
        model_ratio: 1,
        completion_ratio: 1,
        model_price: 0,
        enable_groups: ['vip'],
        is_priced: true,
        is_available: false,
      },
    ];
    fakeServer({ 'GET /api/pricing': () => ({ status: 200, body: { ...pricing, data: models } }) });
    await renderRoute('/pricing');
    const rowOf = async (name: string) => (await screen.findByText(name)).closest('tr')!;
    const mystery = await rowOf('mystery-model');
    expect(within(mystery).getAllByText('未设置价格').length).toBeGreaterThanOrEqual(2);
    expect(mystery.textContent).not.toContain('$0');
    expect(within(mystery).getByLabelText('未设置价格')).toBeTruthy();
    expect(within(await rowOf('gpt-4o-mini')).getByLabelText('您的分组可以使用该模型')).toBeTruthy();
    expect(within(await rowOf('vip-model')).getByLabelText('您的分组无权使用该模型')).toBeTruthy();

    // Looking at another group: priced models that group serves.
    fireEvent.click(within(await rowOf('vip-model')).getByText('vip'));
    await waitFor(async () => expect(within(await rowOf('vip-model')).getByLabelText('您的分组可以使用该模型')).toBeTruthy());
    expect(within(await rowOf('gpt-4o-mini')).getByLabelText('您的分组无权使用该模型')).toBeTruthy();
    expect(within(await rowOf('mystery-model')).getByLabelText('未设置价格')).toBeTruthy();
  });

  it('shows the auto group order and special ratios, and prices an auto row at its first auto group', async () => {
    const body = {
      ...pricing,
      data: [
        {
          model_name: 'claude-3',
          quota_type: 0,
          model_ratio: 1.5,
          completion_ratio: 5,
          model_price: 0,
          enable_groups: ['default', 'auto'],
          is_priced: true,
          is_available: true,
        },
        {
          model_name: 'gpt-4o-mini',
          quota_type: 0,
          model_ratio: 0.075,
          completion_ratio: 4,
          model_price: 0,
          enable_groups: ['default', 'vip', 'auto'],
          is_priced: true,
          is_available: true,
        },
      ],
      group_ratio: { default: 0.5, vip: 2 },
      special_group_ratio: { default: 0.5 },
      usable_group: { default: '默认分组', vip: 'vip分组', auto: '自动选择' },
      auto_groups: ['vip', 'default'],
    };
    fakeServer({ 'GET /api/pricing': () => ({ status: 200, body }) });
    await renderRoute('/pricing', { user: { ...regularUser, group: 'vip' } });
    expect(await screen.findByText('auto 分组的令牌按此顺序选择分组：vip → default（按实际使用的分组倍率计费）')).toBeTruthy();
    expect(screen.getByText('您的分组享有专属倍率：default ×0.5')).toBeTruthy();
    const rowOf = async (name: string) => (await screen.findByText(name)).closest('tr')!;
    fireEvent.click(within(await rowOf('claude-3')).getByText('auto'));
    // claude-3: only default serves it (special ratio 0.5); gpt-4o-mini: vip comes first (ratio 2).
    await waitFor(async () => expect((await rowOf('claude-3')).textContent).toContain('提示 $1.5 / 1M tokens'));
    expect((await rowOf('gpt-4o-mini')).textContent).toContain('提示 $0.3 / 1M tokens');
  });
});
