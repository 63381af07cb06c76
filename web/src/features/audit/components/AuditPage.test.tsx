import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { adminUser, fakeServer, ok, renderRoute } from '../../../test/render-route';

const entry = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  created_at: 1700000000 + id,
  user_id: 1,
  username: 'root',
  role: 100,
  ip: '10.0.0.7',
  method: 'PUT',
  route: '/api/channel/',
  entity: 'channel',
  entity_id: String(id),
  action: 'update',
  before: JSON.stringify({ name: 'old' }),
  after: JSON.stringify({ name: 'new', key_changed: true }),
  status: 200,
  prev_hash: '',
  hash: 'h',
  ...extra,
});

function auditServer() {
  const server = fakeServer({
    'GET /api/audit': (call) =>
      ok({
        items: call.query.get('username') === 'alice' ? [entry(2, { username: 'alice', role: 10, status: 403 })] : [entry(1)],
        page: 1,
        page_size: 10,
        total: 1,
      }),
    'GET /api/audit/verify': () => ok({ ok: false, checked: 4, brokenId: 5, reason: 'edited' }),
  });
  // The export is a file, not an envelope.
  const answerJson = server.fetchMock.getMockImplementation()!;
  server.fetchMock.mockImplementation(async (input: string, init?: RequestInit) => {
    if (!String(input).startsWith('/api/audit/export')) return answerJson(input, init);
    await answerJson(input, init);
    return new Response('id,created_at\r\n1,1700000001\r\n', { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
  });
  return server;
}

describe('the audit screen', { timeout: 240_000 }, () => {
  it('the root filters by who and what, exports with the same filters and checks the chain', async () => {
    const { calls } = auditServer();
    const createObjectURL = vi.fn(() => 'blob:audit');
    Object.defineProperty(URL, 'createObjectURL', { value: createObjectURL, configurable: true });
    Object.defineProperty(URL, 'revokeObjectURL', { value: vi.fn(), configurable: true });
    await renderRoute('/audit', { user: adminUser });
    const row = (await screen.findByText('channel #1')).closest('tr')!;
    // Phone width in jsdom: the side menu is a drawer.
    fireEvent.click(screen.getByLabelText('打开菜单'));
    expect(await screen.findByRole('menuitem', { name: /审计日志/ })).toBeTruthy();
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });
    expect(within(row).getByText('PUT /api/channel/')).toBeTruthy();
    expect(within(row).getByText('10.0.0.7')).toBeTruthy();
    expect(within(row).getByText(/"key_changed": true/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('用户名'), { target: { value: 'alice' } });
    fireEvent.change(screen.getByLabelText('操作'), { target: { value: 'update' } });
    fireEvent.click(screen.getByText(/^查\s*询$/));
    expect(await screen.findByText('channel #2')).toBeTruthy();
    const searched = calls.filter((call) => call.path === '/api/audit').at(-1)!;
    expect([searched.query.get('username'), searched.query.get('action'), searched.query.get('p')]).toEqual(['alice', 'update', '1']);
    fireEvent.click(screen.getByText('导出 CSV'));
    await waitFor(() => expect(createObjectURL).toHaveBeenCalledTimes(1));
    const exported = calls.find((call) => call.path === '/api/audit/export')!;
    expect([exported.query.get('format'), exported.query.get('username'), exported.query.get('action')]).toEqual([
      'csv',
      'alice',
      'update',
    ]);
    fireEvent.click(screen.getByText('导出 JSON Lines'));
    await waitFor(() =>
      expect(
        calls
          .filter((call) => call.path === '/api/audit/export')
          .at(-1)!
          .query.get('format'),
      ).toBe('jsonl'),
    );
    fireEvent.click(screen.getByText('校验完整性'));
    expect(await screen.findByText('校验失败：记录 5 处链条断开（记录被修改）')).toBeTruthy();
  });

  it('an admin who is not the root is refused the screen and is not shown it in the menu', async () => {
    const { calls } = auditServer();
    await renderRoute('/audit', { user: { ...adminUser, id: 3, username: 'ops', role: 10 } });
    expect(await screen.findByText('仅超级管理员可以查看审计日志')).toBeTruthy();
    fireEvent.click(screen.getByLabelText('打开菜单'));
    expect(await screen.findByRole('menuitem', { name: /用户管理/ })).toBeTruthy();
    expect(screen.queryByRole('menuitem', { name: /审计日志/ })).toBeNull();
    expect(calls.some((call) => call.path.startsWith('/api/audit'))).toBe(false);
  });
});
