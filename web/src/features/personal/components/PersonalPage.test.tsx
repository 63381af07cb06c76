import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

const selfOf = (user: { id: number; username: string; role: number }) => ({
  ...user,
  display_name: user.username,
  email: '',
  github_id: '',
  oidc_id: '',
  wechat_id: '',
  telegram_id: '',
  linux_do_id: '',
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  aff_code: 'abcd',
  aff_count: 0,
  aff_quota: 0,
  aff_history_quota: 0,
  setting: '',
});

/** Accepting unpriced models (billed 0) is an admin's own setting: the tab is shown to admins only. */
describe('personal settings: unpriced models', { timeout: 120_000 }, () => {
  it('hides the pricing tab from a regular user', async () => {
    fakeServer({ 'GET /api/user/self': () => ok(selfOf(regularUser)), 'GET /api/user/models': () => ok([]) });
    await renderRoute('/personal', { user: regularUser });
    expect(await screen.findByText('通知设置')).toBeTruthy();
    expect(screen.queryByText('价格设置')).toBeNull();
  });

  it('lets an admin turn it on', async () => {
    const { calls } = fakeServer({
      'GET /api/user/self': () => ok(selfOf(adminUser)),
      'GET /api/user/models': () => ok([]),
      'PUT /api/user/setting': () => ok(null),
    });
    await renderRoute('/personal', { user: adminUser });
    fireEvent.click(await screen.findByText('价格设置'));
    const toggle = await screen.findByRole('switch');
    fireEvent.click(toggle);
    fireEvent.click(screen.getByText(/^保\s*存$/));
    await waitFor(() => expect(calls.filter((call) => call.method === 'PUT' && call.path === '/api/user/setting')).toHaveLength(1));
    const body = calls.find((call) => call.method === 'PUT' && call.path === '/api/user/setting')!.body as Record<string, unknown>;
    expect(body.accept_unset_model_ratio_model).toBe(true);
  });
});
