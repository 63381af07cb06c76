import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { userStore } from '../../../lib/user-store';
import { fail, fakeServer, ok, renderRoute } from '../../../test/render-route';

const user = { id: 9, username: 'tina', display_name: 'Tina', role: 1, status: 1, group: 'default' };

/** A sign-in with a second factor: the password step, then the code step; the user is stored only after it. */
describe('two-factor sign-in screen', { timeout: 120_000 }, () => {
  it('asks for a code after the password, shows a refusal, and signs in with the right code', async () => {
    const { calls } = fakeServer({
      'POST /api/user/login': () => ok({ require_2fa: true, totp: true, passkey: false }),
      'POST /api/user/login/2fa': (call) =>
        (call.body as { code: string }).code === '123456' ? ok(user) : fail('验证码或备用码错误，请重试', 400),
    });
    const { router } = await renderRoute('/login');
    fireEvent.change(await screen.findByLabelText('用户名或邮箱'), { target: { value: 'tina' } });
    fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'secret-pass' } });
    fireEvent.click(within(screen.getByLabelText('密码').closest('form')!).getByRole('button', { name: /^登\s*录$/ }));
    const code = await screen.findByLabelText('验证码');
    expect(userStore.get()).toBeNull();
    expect(screen.queryByRole('button', { name: '使用 Passkey' })).toBeNull();
    fireEvent.change(code, { target: { value: '000000' } });
    fireEvent.click(screen.getByRole('button', { name: /^验\s*证$/ }));
    expect(await screen.findByText(/验证码或备用码错误，请重试/)).toBeTruthy();
    expect(userStore.get()).toBeNull();
    fireEvent.change(code, { target: { value: ' 123456 ' } });
    fireEvent.click(screen.getByRole('button', { name: /^验\s*证$/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(userStore.get()).toMatchObject({ id: 9, username: 'tina' });
    expect(calls.filter((call) => call.path === '/api/user/login/2fa').map((call) => call.body)).toEqual([
      { code: '000000' },
      { code: '123456' },
    ]);
  });

  it('offers only the passkey when that is the factor, and goes back to the password step', async () => {
    fakeServer({ 'POST /api/user/login': () => ok({ require_2fa: true, totp: false, passkey: true }) });
    await renderRoute('/login');
    fireEvent.change(await screen.findByLabelText('用户名或邮箱'), { target: { value: 'pete' } });
    fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'secret-pass' } });
    fireEvent.click(within(screen.getByLabelText('密码').closest('form')!).getByRole('button', { name: /^登\s*录$/ }));
    expect(await screen.findByRole('button', { name: /使用 Passkey/ })).toBeTruthy();
    expect(screen.queryByLabelText('验证码')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '返回登录' }));
    expect(await screen.findByLabelText('用户名或邮箱')).toBeTruthy();
  });

  it('sends an admin who must enrol a second factor to the two-factor tab', async () => {
    fakeServer({ 'POST /api/user/login': () => ok({ ...user, role: 10, require_2fa_setup: true }) });
    const { router } = await renderRoute('/login');
    fireEvent.change(await screen.findByLabelText('用户名或邮箱'), { target: { value: 'adm' } });
    fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'secret-pass' } });
    fireEvent.click(within(screen.getByLabelText('密码').closest('form')!).getByRole('button', { name: /^登\s*录$/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/personal'));
    expect(router.state.location.search).toBe('?tab=two-factor');
    expect(userStore.get()).not.toHaveProperty('require_2fa_setup');
  });
});
