import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { baseStatus, fakeServer, ok, regularUser, renderRoute, type FakeCall } from '../../../test/render-route';
import { parseExpiry } from '../hooks/token-time';

const token = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `key-${id}`,
  key: `abcd${'x'.repeat(40)}${id}wxyz`,
  status: 1,
  remain_quota: 500000,
  used_quota: 0,
  unlimited_quota: false,
  expired_time: -1,
  model_limits_enabled: false,
  model_limits: '',
  allow_ips: '',
  group: '',
  created_time: 1700000000,
  ...extra,
});

function tokenServer(extra: Record<string, (call: FakeCall) => unknown> = {}) {
  return fakeServer({
    'GET /api/token/': () => ok({ items: [token(1), token(2, { status: 3, expired_time: 1600000000 })], page: 1, page_size: 10, total: 2 }),
    'GET /api/user/self/groups': () => ok({ default: { desc: '默认分组', ratio: 1 }, vip: { desc: 'VIP', ratio: 2 } }),
    'GET /api/user/models': () => ok(['gpt-4o', 'gpt-4o-mini']),
    'POST /api/token/': () => ok(null),
    'PUT /api/token/': () => ok(null),
    ...extra,
  });
}

const bodies = (calls: FakeCall[], key: string) =>
  calls.filter((call) => `${call.method} ${call.path}` === key).map((call) => call.body as Record<string, unknown>);
const submit = (form: ReturnType<typeof within>) => fireEvent.click(form.getByText(/^提\s*交$/));

describe('tokens', { timeout: 240_000 }, () => {
  it('shows the personal-use banner and statuses; an expired token cannot be toggled; copy selected needs a selection', async () => {
    const { calls } = tokenServer();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await renderRoute('/token', { user: regularUser });
    expect(await screen.findByText('令牌仅供个人使用，请勿分享给他人或用于转售，以免造成额度损失。')).toBeTruthy();
    expect(await screen.findByText('key-1')).toBeTruthy();
    expect(screen.getByText('已过期')).toBeTruthy();
    // Created and expiry times in the console's one format, YYYY-MM-DD HH:mm:ss (local time).
    const expiry = new Date(1600000000 * 1000);
    const pad = (value: number) => String(value).padStart(2, '0');
    const expiryText = `${expiry.getFullYear()}-${pad(expiry.getMonth() + 1)}-${pad(expiry.getDate())} ${pad(expiry.getHours())}:${pad(expiry.getMinutes())}:${pad(expiry.getSeconds())}`;
    expect(within(screen.getByText('key-2').closest('tr')!).getByText(expiryText)).toBeTruthy();
    expect((screen.getByRole('switch', { name: '启用或禁用令牌 key-2' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('switch', { name: '启用或禁用令牌 key-1' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'PUT' && call.query.get('status_only') === 'true')).toBe(true));
    expect(bodies(calls, 'PUT /api/token/')[0]).toEqual({ id: 1, status: 2 });
    fireEvent.click(screen.getByText(/^复制所选令牌$/));
    expect(await screen.findByText('请至少选择一个令牌！')).toBeTruthy();
    const row = screen.getByText('key-1').closest('tr')!;
    fireEvent.click(within(row).getByText(/^复\s*制$/));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(`sk-${token(1).key}`));
    fireEvent.click(within(row).getByRole('checkbox'));
    fireEvent.click(screen.getByText(/^复制所选令牌$/));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(`key-1    sk-${token(1).key}`));
  });

  it('validates the name and the expiry format, then creates a batch with presets', async () => {
    const { calls } = tokenServer();
    await renderRoute('/token', { user: regularUser });
    await screen.findByText('key-1');
    fireEvent.click(screen.getByText(/^添加令牌$/));
    const form = within(await screen.findByRole('dialog'));
    submit(form);
    expect(await screen.findByText('令牌名称不能为空')).toBeTruthy();
    fireEvent.change(form.getByLabelText('名称'), { target: { value: 'ci' } });
    fireEvent.change(form.getByLabelText('过期时间'), { target: { value: '2030-13-01 00:00:00' } });
    submit(form);
    expect(await screen.findByText('过期时间格式错误！')).toBeTruthy();
    fireEvent.click(form.getByText('一小时'));
    const expiry = parseExpiry((form.getByLabelText('过期时间') as HTMLInputElement).value)!;
    expect(Math.abs(expiry - (Date.now() / 1000 + 3600))).toBeLessThan(5);
    fireEvent.click(form.getByText('$10'));
    fireEvent.click(form.getByText('20'));
    fireEvent.change(form.getByLabelText('IP 白名单'), { target: { value: '10.0.0.0/8' } });
    submit(form);
    await waitFor(() => expect(bodies(calls, 'POST /api/token/')).toHaveLength(1));
    expect(bodies(calls, 'POST /api/token/')[0]).toMatchObject({
      name: 'ci',
      remain_quota: 5000000,
      unlimited_quota: false,
      expired_time: expiry,
      count: 20,
      allow_ips: '10.0.0.0/8',
      group: '',
      max_concurrency: 0,
    });
    expect(await screen.findByText('令牌创建成功，请在列表页面点击复制获取令牌！')).toBeTruthy();
  });

  it('edits a token: never-expiring, unlimited, model limits', async () => {
    const { calls } = tokenServer({ 'GET /api/token/1': () => ok(token(1, { expired_time: 1900000000 })) });
    await renderRoute('/token', { user: regularUser });
    const row = (await screen.findByText('key-1')).closest('tr')!;
    fireEvent.click(within(row).getByText(/^编\s*辑$/));
    const form = within(await screen.findByRole('dialog'));
    await waitFor(() => expect((form.getByLabelText('名称') as HTMLInputElement).value).toBe('key-1'));
    fireEvent.click(form.getByText('永不过期'));
    fireEvent.click(form.getByRole('checkbox', { name: '设为无限额度' }));
    submit(form);
    await waitFor(() => expect(bodies(calls, 'PUT /api/token/')).toHaveLength(1));
    expect(bodies(calls, 'PUT /api/token/')[0]).toMatchObject({ id: 1, name: 'key-1', expired_time: -1, unlimited_quota: true });
    expect(bodies(calls, 'PUT /api/token/')[0]).not.toHaveProperty('count');
    expect(await screen.findByText('令牌更新成功！')).toBeTruthy();
  });

  it('offers chat links from the Chats option with the sk- key substituted', async () => {
    tokenServer({
      'GET /api/status': () =>
        ok({ ...baseStatus, chats: [{ ChatNext: 'https://chat.example.com/#/?settings={"key":"{key}","url":"{address}"}' }] }),
    });
    const open = vi.fn();
    vi.stubGlobal('open', open);
    await renderRoute('/token', { user: regularUser });
    const row = (await screen.findByText('key-1')).closest('tr')!;
    fireEvent.mouseEnter(
      within(row)
        .getByText(/^聊天$/)
        .closest('button')!,
    );
    fireEvent.click(await screen.findByText('ChatNext'));
    await waitFor(() => expect(open).toHaveBeenCalled());
    expect(String(open.mock.calls[0]![0])).toContain(`"key":"sk-${token(1).key}"`);
  });
});
