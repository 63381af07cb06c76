import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { baseStatus, fakeServer, ok, regularUser, renderScreen } from '../../../test/render-route';
import type { SelfUser } from '@modelgate/shared';
import { BindingsPanel } from './BindingsPanel';

const self: SelfUser = {
  id: 2,
  username: 'alice',
  display_name: 'Alice',
  email: '',
  github_id: 'alice-gh',
  oidc_id: '',
  wechat_id: '',
  telegram_id: '',
  linux_do_id: '',
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  role: 1,
  status: 1,
  aff_code: null,
  aff_count: 0,
  aff_quota: 0,
  aff_history_quota: 0,
  inviter_id: 0,
  setting: '',
  created_time: 0,
  deleted_at: null,
};

describe('account bindings', { timeout: 120_000 }, () => {
  it('unbinds a bound provider after confirmation; offers bind for enabled unbound ones only', async () => {
    const { calls } = fakeServer({
      'GET /api/status': () =>
        ok({ ...baseStatus, github_oauth: true, oidc_enabled: true, oidc_authorization_endpoint: 'http://idp/auth', oidc_client_id: 'c' }),
      'DELETE /api/oauth/github/bind': () => ok(null),
    });
    await renderScreen('/personal', <BindingsPanel user={self} />, { user: regularUser });
    const github = await screen.findByTestId('binding-github');
    expect(within(github).getByText('alice-gh')).toBeTruthy();
    await waitFor(() => expect((within(screen.getByTestId('binding-oidc')).getByRole('button') as HTMLButtonElement).disabled).toBe(false));
    expect((within(screen.getByTestId('binding-linuxdo')).getByRole('button') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(github).getByRole('button', { name: /解\s*绑/ }));
    expect(await screen.findByText('确定要解绑 GitHub 账户吗？解绑后将不能再用它登录。')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /^确\s*定$/ }));
    expect(await screen.findByText('解绑成功')).toBeTruthy();
    expect(calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual(['/api/oauth/github/bind']);
  });
});
