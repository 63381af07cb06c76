import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { userStore } from '../../../lib/user-store';
import { fail, fakeServer, regularUser, renderScreen } from '../../../test/render-route';
import { OAuthCallbackPage } from './OAuthCallbackPage';

describe('OAuth callback screen', { timeout: 120_000 }, () => {
  it('binds for a signed-in user: forwards code, state and iss with New-Api-User, then goes to /personal', async () => {
    const { calls, fetchMock } = fakeServer({
      'GET /api/oauth/oidc': () => ({ status: 200, body: { success: true, message: 'bind', data: null } }),
    });
    const { router } = await renderScreen('/oauth/oidc?code=c1&state=s1&iss=http%3A%2F%2Fidp', <OAuthCallbackPage provider="oidc" />, {
      user: regularUser,
    });
    expect(await screen.findByText('绑定成功！')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/personal'));
    const call = calls.find((c) => c.path === '/api/oauth/oidc');
    expect(Object.fromEntries(call?.query ?? [])).toEqual({ code: 'c1', state: 's1', iss: 'http://idp' });
    const init = fetchMock.mock.calls.find(([url]) => String(url).startsWith('/api/oauth/oidc'))?.[1] as RequestInit;
    expect((init.headers as Record<string, string>)['New-Api-User']).toBe('2');
  });

  it('signs in: stores the user and goes to /token', async () => {
    const user = { id: 7, username: 'octocat', display_name: 'Octo', role: 1, status: 1, group: 'default' };
    fakeServer({ 'GET /api/oauth/github': () => ({ status: 200, body: { success: true, message: '登录成功！', data: user } }) });
    const { router } = await renderScreen('/oauth/github?code=c2&state=s2', <OAuthCallbackPage provider="github" />);
    expect(await screen.findByText('登录成功！')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(userStore.get()).toMatchObject({ id: 7, username: 'octocat' });
  });

  it('shows the server message and the redirect notice on failure, then returns to login', async () => {
    fakeServer({ 'GET /api/oauth/linuxdo': () => fail('state 无效、已使用或已过期，请重新发起登录', 400) });
    const { router } = await renderScreen('/oauth/linuxdo?code=c3&state=bad', <OAuthCallbackPage provider="linuxdo" />);
    expect(await screen.findByText('state 无效、已使用或已过期，请重新发起登录')).toBeTruthy();
    expect(await screen.findByText('操作失败，重定向至登录界面中...')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 5000 });
    expect(userStore.get()).toBeNull();
  });
});
