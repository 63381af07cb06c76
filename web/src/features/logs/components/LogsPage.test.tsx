import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fakeServer, ok, regularUser, renderScreen } from '../../../test/render-route';
import { LogsPage } from './LogsPage';

const row = (id: number, type: number, content: string, quota = 0) => ({
  id,
  created_at: 1_700_000_000 + id,
  type,
  username: 'alice',
  user_id: 2,
  token_name: 'script',
  model_name: '',
  group: '',
  is_stream: 0,
  use_time: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  quota,
  content,
  other: '',
});

describe('usage log types', () => {
  it('filters by the error (5) and refund (6) types and tags their rows', async () => {
    const { calls } = fakeServer({
      'GET /api/log/self/': (call) => {
        const type = call.query.get('type');
        const items =
          type === '6'
            ? [row(2, 6, 'suno 任务 t1（MUSIC）失败，退还额度：任务超时', 50_000)]
            : [
                row(3, 4, '新用户注册赠送 ＄1.000000 额度', 500_000),
                row(2, 6, 'suno 任务 t1（MUSIC）失败，退还额度：任务超时', 50_000),
                row(1, 5, 'upstream failed'),
              ];
        return ok({ items, total: items.length, page: 1, page_size: 10 });
      },
      'GET /api/log/self/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }),
    });
    await renderScreen('/log', <LogsPage />, { user: regularUser });
    const table = (await screen.findByText('新用户注册赠送 ＄1.000000 额度')).closest('table') as HTMLElement;
    for (const tag of ['系统', '退款', '错误']) expect(within(table).getByText(tag, { selector: '.ant-tag' })).toBeTruthy();

    fireEvent.mouseDown(screen.getByLabelText('类型'));
    await screen.findByText('退款', { selector: '.ant-select-item-option-content' });
    const labels = [...document.querySelectorAll('.ant-select-item-option-content')].map((option) => option.textContent);
    expect(labels).toEqual(['全部', '充值', '消费', '管理', '系统', '错误', '退款']);
    fireEvent.click(await screen.findByText('退款', { selector: '.ant-select-item-option-content' }));
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(calls.some((call) => call.path === '/api/log/self/' && call.query.get('type') === '6')).toBe(true));
    await waitFor(() => expect(screen.queryByText('新用户注册赠送 ＄1.000000 额度')).toBeNull());
  });

  it('expands an error row (type 5) to the failure: status, code, path, the error text and, for admins, the channels tried', async () => {
    const other = JSON.stringify({
      status_code: 502,
      error_type: 'upstream_error',
      error_code: 'upstream_unreachable',
      request_path: '/v1/chat/completions',
      group: 'default',
      admin_info: { use_channel: ['3', '7'], upstream_status: 0 },
    });
    const failed = {
      ...row(9, 5, '上游连接失败：connect ECONNREFUSED [upstream]'),
      model_name: 'gpt-4o',
      use_time: 2,
      channel: 7,
      channel_name: 'backup',
      other,
    };
    fakeServer({
      'GET /api/log/': () => ok({ items: [failed], total: 1, page: 1, page_size: 10 }),
      'GET /api/log/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }),
    });
    await renderScreen('/log', <LogsPage />, { user: adminUser });
    const cell = await screen.findByText('上游连接失败：connect ECONNREFUSED [upstream]');
    const tableRow = cell.closest('tr') as HTMLElement;
    fireEvent.click(within(tableRow).getByRole('button', { name: /展开/ }));
    const detail = await screen.findByTestId('log-detail-9');
    for (const text of ['状态码', '502', 'upstream_unreachable', '/v1/chat/completions', '无应答（连接失败）', '#3 → #7'])
      expect(within(detail).getByText(text)).toBeTruthy();
    expect(within(detail).getByText(/ECONNREFUSED/)).toBeTruthy();
  });

  it('tags the cost of a call a subscription paid', async () => {
    const paid = {
      ...row(4, 2, '模型倍率 1，补全倍率 1，分组倍率 1', 15),
      model_name: 'gpt-4o-mini',
      other: JSON.stringify({ billing_source: 'subscription', subscription_quota: 15, wallet_quota: 0, subscription_id: 3 }),
    };
    const mixed = {
      ...row(5, 2, '模型倍率 1，补全倍率 1，分组倍率 1', 20),
      model_name: 'gpt-4o-mini',
      other: JSON.stringify({ billing_source: 'mixed', subscription_quota: 5, wallet_quota: 15, subscription_id: 3 }),
    };
    const wallet = { ...row(6, 2, 'wallet call', 20), model_name: 'gpt-4o-mini', other: JSON.stringify({ model_ratio: 1 }) };
    fakeServer({
      'GET /api/log/self/': () => ok({ items: [mixed, paid, wallet], total: 3, page: 1, page_size: 10 }),
      'GET /api/log/self/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }),
    });
    await renderScreen('/log', <LogsPage />, { user: regularUser });
    const walletRow = (await screen.findByText('wallet call')).closest('tr') as HTMLElement;
    const table = walletRow.closest('table') as HTMLElement;
    expect(within(table).getByText('订阅', { selector: '.ant-tag' })).toBeTruthy();
    expect(within(table).getByText('订阅 + 钱包', { selector: '.ant-tag' })).toBeTruthy();
    expect(within(walletRow).queryByText('钱包', { selector: '.ant-tag' })).toBeNull();
  });
});

describe('usage log cache hits', () => {
  it('tags a consume row the response cache answered', async () => {
    fakeServer({
      'GET /api/log/self/': () =>
        ok({
          items: [
            {
              ...row(2, 2, '模型倍率 1，补全倍率 1，分组倍率 1', 0),
              model_name: 'gpt-4o-mini',
              other: JSON.stringify({ cache_hit: true, cache_hit_ratio: 0, cache_original_quota: 120 }),
            },
            { ...row(1, 2, '模型倍率 1，补全倍率 1，分组倍率 1', 120), model_name: 'gpt-4o-mini', other: JSON.stringify({ frt: 10 }) },
          ],
          total: 2,
          page: 1,
          page_size: 10,
        }),
      'GET /api/log/self/stat': () => ok({ quota: 0, rpm: 0, tpm: 0 }),
    });
    await renderScreen('/log', <LogsPage />, { user: regularUser });
    const tags = await screen.findAllByText('缓存命中', { selector: '.ant-tag' });
    expect(tags).toHaveLength(1);
  });
});
