import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUser, fail, fakeServer, ok, renderRoute, renderScreen, type FakeCall } from '../../../test/render-route';
import { SettingsPage } from './SettingsPage';

const storedOptions: Record<string, string> = {
  ServerAddress: 'https://gate.example.com',
  SMTPServer: 'smtp.example.com',
  SMTPPort: '587',
  SMTPAccount: 'mailer',
  SMTPFrom: 'noreply@example.com',
  SMTPSSLEnabled: 'false',
  PasswordLoginEnabled: 'true',
  Price: '7.3',
  MinTopUp: '1',
  TopupGroupRatio: '{"default":1}',
};

function optionServer(options: Record<string, string>, onPut?: (call: FakeCall) => unknown) {
  return fakeServer({
    'GET /api/option/': () => ok(Object.entries(options).map(([key, value]) => ({ key, value }))),
    'PUT /api/option/': async (call) => (onPut ? onPut(call) : ok(null)),
  });
}

const puts = (calls: FakeCall[]) =>
  calls.filter((call) => call.method === 'PUT').map((call) => call.body as { key: string; value: string });

/** The settings page alone, opened on one sub-section of the system tab. */
const openSection = (section: string) => renderScreen(`/setting?tab=system&section=${section}`, <SettingsPage />, { user: adminUser });

async function panel(title: string) {
  const heading = await screen.findByText(title, { selector: '.ant-card-head-title' });
  return heading.closest('.ant-card') as HTMLElement;
}

describe('system settings save rules', () => {
  it('warns when nothing changed', async () => {
    const { calls } = optionServer(storedOptions);
    await openSection('general');
    const general = await panel('通用设置');
    fireEvent.click(within(general).getByRole('button', { name: /保存通用设置/ }));
    expect(await screen.findByText('你似乎并没有修改什么')).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
  });

  it('saves toggles first one by one, strips trailing slashes and sends secrets only when non-empty', async () => {
    const { calls } = optionServer(storedOptions, async (call) => {
      const body = call.body as { key: string };
      if (body.key === 'SMTPSSLEnabled') await new Promise((resolve) => setTimeout(resolve, 50));
      return ok(null);
    });
    await openSection('smtp');
    const smtp = await panel('配置 SMTP');
    fireEvent.change(within(smtp).getByLabelText('SMTP 服务器地址'), { target: { value: 'mail.example.com' } });
    fireEvent.click(within(smtp).getByRole('switch', { name: '启用 SMTP SSL' }));
    fireEvent.click(within(smtp).getByRole('button', { name: /保存配置 SMTP/ }));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    const saved = puts(calls);
    expect(saved.map((entry) => entry.key)).toEqual(['SMTPSSLEnabled', 'SMTPServer']);
    expect(saved[0]).toEqual({ key: 'SMTPSSLEnabled', value: 'true' });
    // the text option is sent only after the toggle's call completed
    const toggleCall = calls.find((call) => (call.body as { key?: string })?.key === 'SMTPSSLEnabled')!;
    const textCall = calls.find((call) => (call.body as { key?: string })?.key === 'SMTPServer')!;
    expect(textCall.at - toggleCall.at).toBeGreaterThanOrEqual(40);
    expect(saved.some((entry) => entry.key === 'SMTPToken')).toBe(false);

    fireEvent.click(screen.getByRole('menuitem', { name: '通用设置' }));
    const general = await panel('通用设置');
    const address = within(general).getByLabelText('服务器地址');
    fireEvent.change(address, { target: { value: 'https://new.example.com///' } });
    fireEvent.change(within(general).getByLabelText('Worker 密钥'), { target: { value: 'worker-secret' } });
    fireEvent.click(within(general).getByRole('button', { name: /保存通用设置/ }));
    await waitFor(() => expect(puts(calls)).toHaveLength(4));
    expect(puts(calls).slice(2)).toEqual(
      expect.arrayContaining([
        { key: 'ServerAddress', value: 'https://new.example.com' },
        { key: 'WorkerValidKey', value: 'worker-secret' },
      ]),
    );
  });

  it('reports a partial failure', async () => {
    optionServer(storedOptions, (call) => ((call.body as { key: string }).key === 'SMTPFrom' ? fail('SMTPFrom 无效') : ok(null)));
    await openSection('smtp');
    const smtp = await panel('配置 SMTP');
    fireEvent.change(within(smtp).getByLabelText('SMTP 账户'), { target: { value: 'mailer2' } });
    fireEvent.change(within(smtp).getByLabelText('SMTP 发送者邮箱'), { target: { value: 'noreply@example.comx' } });
    fireEvent.click(within(smtp).getByRole('button', { name: /保存配置 SMTP/ }));
    expect(await screen.findByText('部分保存失败，请重试')).toBeTruthy();
  });

  it('payment: requires the server address first and validates the group ratio JSON on blur', async () => {
    const { calls } = optionServer({ ...storedOptions, ServerAddress: '' });
    await openSection('payment');
    const payment = await panel('支付设置');
    const ratio = within(payment).getByLabelText('充值分组倍率');
    fireEvent.change(ratio, { target: { value: '{not json' } });
    fireEvent.blur(ratio);
    expect(await within(payment).findByText('充值分组倍率不是合法的 JSON 字符串')).toBeTruthy();
    fireEvent.change(ratio, { target: { value: '{"vip": 2}' } });
    fireEvent.blur(ratio);
    fireEvent.click(within(payment).getByRole('button', { name: /保存支付设置/ }));
    expect(await screen.findByText('请先填写服务器地址')).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
  });

  it('response cache: checks the groups JSON and saves the changed options', async () => {
    const { calls } = optionServer({ ...storedOptions, 'response_cache.groups': '{}', 'response_cache.hit_ratio': '0' });
    await openSection('response-cache');
    const cache = await panel('响应缓存');
    const groups = within(cache).getByLabelText('启用缓存的分组');
    fireEvent.change(groups, { target: { value: '{oops' } });
    fireEvent.blur(groups);
    expect(await within(cache).findByText('必须是 JSON 对象，值为 0 到 2592000 的整数秒数')).toBeTruthy();
    fireEvent.change(groups, { target: { value: '{"default": 300}' } });
    fireEvent.blur(groups);
    fireEvent.change(within(cache).getByLabelText('命中计费倍率'), { target: { value: '0.5' } });
    fireEvent.click(within(cache).getByRole('button', { name: /保存响应缓存/ }));
    expect(await screen.findByText('保存成功')).toBeTruthy();
    expect(puts(calls)).toEqual(
      expect.arrayContaining([
        { key: 'response_cache.groups', value: '{"default": 300}' },
        { key: 'response_cache.hit_ratio', value: '0.5' },
      ]),
    );
  });

  it('general: says what the server address is for, without a warning once it is set', async () => {
    optionServer(storedOptions);
    await openSection('general');
    const general = await panel('通用设置');
    expect(within(general).getByText(/密码重置邮件中的链接、GitHub \/ OIDC \/ Linux DO 登录的回调地址和支付回调都以它为准/)).toBeTruthy();
    expect(within(general).queryByText('尚未填写服务器地址')).toBeNull();
  });

  it('general: warns while the server address is empty', async () => {
    optionServer({ ...storedOptions, ServerAddress: '' });
    await openSection('general');
    const general = await panel('通用设置');
    expect(await within(general).findByText('尚未填写服务器地址')).toBeTruthy();
    expect(within(general).getByText(/密码重置邮件、GitHub \/ OIDC \/ Linux DO 登录与绑定、在线充值都会被拒绝/)).toBeTruthy();
  });

  it('asks before turning password login off and restores it on cancel', async () => {
    optionServer(storedOptions);
    await openSection('login');
    const login = await panel('配置登录注册');
    const toggle = within(login).getByRole('switch', { name: '允许通过密码进行登录' });
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    fireEvent.click(toggle);
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/您确定要取消密码登录功能吗/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: /取\s*消/ }));
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('true'));
  });

  it('OIDC: the server fetches the well-known document (http:// too) and its endpoints fill the form', async () => {
    const { calls } = fakeServer({
      'GET /api/option/': () => ok(Object.entries(storedOptions).map(([key, value]) => ({ key, value }))),
      'POST /api/oauth/oidc/discovery': (call) =>
        (call.body as { well_known: string }).well_known.endsWith('/slow')
          ? fail('获取 OIDC 配置超时（10 秒）', 400)
          : ok({
              issuer: 'http://idp.intranet',
              authorization_endpoint: 'http://idp.intranet/auth',
              token_endpoint: 'http://idp.intranet/token',
              userinfo_endpoint: 'http://idp.intranet/me',
            }),
    });
    await openSection('oidc');
    const oidc = await panel('配置 OIDC');
    fireEvent.change(within(oidc).getByLabelText('Well-Known URL'), {
      target: { value: 'http://idp.intranet/.well-known/openid-configuration' },
    });
    fireEvent.click(within(oidc).getByRole('button', { name: /获取 OIDC 配置/ }));
    expect(await screen.findByText('已获取 OIDC 配置')).toBeTruthy();
    expect((within(oidc).getByLabelText('Authorization Endpoint') as HTMLInputElement).value).toBe('http://idp.intranet/auth');
    expect((within(oidc).getByLabelText('Token Endpoint') as HTMLInputElement).value).toBe('http://idp.intranet/token');
    expect(calls.find((call) => call.path === '/api/oauth/oidc/discovery')!.body).toEqual({
      well_known: 'http://idp.intranet/.well-known/openid-configuration',
    });

    fireEvent.change(within(oidc).getByLabelText('Well-Known URL'), { target: { value: 'http://idp.intranet/slow' } });
    fireEvent.click(within(oidc).getByRole('button', { name: /获取 OIDC 配置/ }));
    expect(await screen.findByText('获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确')).toBeTruthy();
    expect(await screen.findByText('获取 OIDC 配置超时（10 秒）')).toBeTruthy();
  });

  it('shows only the section named in the URL and keeps the chosen one there', async () => {
    optionServer(storedOptions);
    const { router } = await openSection('smtp');
    await panel('配置 SMTP');
    expect(screen.queryByText('通用设置', { selector: '.ant-card-head-title' })).toBeNull();
    fireEvent.click(screen.getByRole('menuitem', { name: '支付设置' }));
    await panel('支付设置');
    expect(screen.queryByText('配置 SMTP', { selector: '.ant-card-head-title' })).toBeNull();
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({ tab: 'system', section: 'payment' });
  });

  it('defaults to the operation tab', async () => {
    optionServer(storedOptions);
    await renderRoute('/setting', { user: adminUser });
    expect(await screen.findByRole('tab', { name: '运营设置', selected: true })).toBeTruthy();
    expect(await screen.findByText('分组倍率设置')).toBeTruthy();
  });

  it('shows an admin the tabs it may manage, not the root-only system tab', async () => {
    optionServer({ QuotaPerUnit: '500000', Notice: '' });
    await renderRoute('/setting', { user: { ...adminUser, id: 7, username: 'ops', role: 10 } });
    const tabs = (await screen.findAllByRole('tab')).map((tab) => tab.textContent);
    expect(tabs).toHaveLength(4);
    expect(tabs).not.toContain('系统设置');
    expect(await screen.findByText('分组倍率设置')).toBeTruthy();
  });

  it('shows the reason and a retry instead of spinning when the options cannot be read', async () => {
    let isDown = true;
    fakeServer({
      'GET /api/option/': () => (isDown ? fail('无权进行此操作，权限不足', 403) : ok([{ key: 'Notice', value: '' }])),
    });
    await renderRoute('/setting', { user: adminUser });
    expect(await screen.findByText('加载设置失败')).toBeTruthy();
    expect(screen.getAllByText(/无权进行此操作，权限不足/).length).toBeGreaterThan(0);
    isDown = false;
    fireEvent.click(screen.getByRole('button', { name: /重\s*试/ }));
    expect(await screen.findByText('分组倍率设置')).toBeTruthy();
  });

  it("shows the server's reason when a toggle is refused", async () => {
    optionServer(storedOptions, (call) =>
      (call.body as { key: string }).key === 'GitHubOAuthEnabled' ? fail('请先填写 GitHub Client ID 和 Client Secret', 400) : ok(null),
    );
    await openSection('login');
    const login = await panel('配置登录注册');
    fireEvent.click(within(login).getByRole('switch', { name: '允许通过 GitHub 账户登录 & 注册' }));
    fireEvent.click(within(login).getByText(/^保存/));
    expect(await screen.findByText('请先填写 GitHub Client ID 和 Client Secret')).toBeTruthy();
  });
});
