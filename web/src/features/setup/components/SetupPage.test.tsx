import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { userStore } from '../../../lib/user-store';
import { adminUser, baseStatus, fakeServer, ok, renderRoute, renderScreen } from '../../../test/render-route';
import { SetupPage } from './SetupPage';

describe('setup screen', () => {
  it('says the server address is needed for reset mail, third-party sign-in and payment callbacks', async () => {
    fakeServer({ 'GET /api/setup': () => ok({ status: false, root_init: false, database_type: 'postgres' }) });
    await renderScreen('/setup', <SetupPage />);
    expect(await screen.findByText('初始化后请填写服务器地址')).toBeTruthy();
    expect(screen.getByText(/密码重置邮件、GitHub \/ OIDC \/ Linux DO 登录和支付回调都需要它/)).toBeTruthy();
  });

  it('says it in English too', async () => {
    fakeServer({ 'GET /api/setup': () => ok({ status: false, root_init: true, database_type: 'sqlite' }) });
    await renderScreen('/setup', <SetupPage />, { language: 'en' });
    expect(await screen.findByText('Set the server address after initialization')).toBeTruthy();
    expect(screen.getByText(/Password-reset mail, GitHub \/ OIDC \/ Linux DO sign-in and payment callbacks need it/)).toBeTruthy();
  });
});

function setupServer(rootExists: boolean) {
  let isDone = false;
  return fakeServer({
    'GET /api/status': () => ok({ ...baseStatus, setup: isDone }),
    'GET /api/setup': () => ok({ status: isDone, root_init: rootExists, database_type: 'sqlite' }),
    'POST /api/setup': () => {
      isDone = true;
      return ok(rootExists ? null : { ...adminUser, username: 'boss' });
    },
    'GET /api/token/': () => ok({ items: [], page: 1, page_size: 10, total: 0 }),
  });
}

describe('first-run setup', { timeout: 60_000 }, () => {
  it('leaves the new root signed in, in the console', async () => {
    const { calls } = setupServer(false);
    const { router } = await renderRoute('/setup');
    fireEvent.change(await screen.findByLabelText('管理员用户名'), { target: { value: 'boss' } });
    fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'boss-pass-1' } });
    fireEvent.change(screen.getByLabelText('确认密码'), { target: { value: 'boss-pass-1' } });
    fireEvent.click(screen.getByRole('button', { name: /初始化系统/ }));
    expect(await screen.findByText('系统初始化成功，正在跳转...')).toBeTruthy();
    expect(userStore.get()).toMatchObject({ id: adminUser.id, username: 'boss', role: 100 });
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'), { timeout: 5000 });
    expect(calls.find((call) => call.method === 'POST' && call.path === '/api/setup')!.body).toEqual({
      username: 'boss',
      password: 'boss-pass-1',
      confirmPassword: 'boss-pass-1',
      SelfUseModeEnabled: false,
      DemoSiteEnabled: false,
    });
  });

  it('goes home, signed out, when the root was imported (nobody was created)', async () => {
    setupServer(true);
    const { router } = await renderRoute('/setup');
    fireEvent.click(await screen.findByRole('button', { name: /初始化系统/ }));
    expect(await screen.findByText('系统初始化成功，正在跳转...')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'), { timeout: 5000 });
    expect(userStore.get()).toBeNull();
  });
});
