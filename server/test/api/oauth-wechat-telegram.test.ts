import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { signTelegramLogin, startWeChatServer } from '../helpers/oauth-servers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolTotp, nextCode } from '../helpers/two-factor.js';

const botToken = '123456:telegram-bot-token';
const query = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('WeChat (WeChat server protocol) and Telegram (login widget) sign-in', () => {
  let wechat: Awaited<ReturnType<typeof startWeChatServer>>;
  let server: TestServer;
  let root: LoggedIn;
  const setOption = async (key: string, value: string) => {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  };

  beforeAll(async () => {
    wechat = await startWeChatServer('wechat-server-token');
    server = await startTestServer();
    root = await setupRootAndLogin(server);
    // ServerAddress stays empty: neither flow has a redirect URI, so neither needs one.
    await setOption('WeChatServerAddress', `${wechat.url}/`);
    await setOption('WeChatServerToken', 'wechat-server-token');
    await setOption('WeChatAuthEnabled', 'true');
    await setOption('TelegramBotToken', botToken);
    await setOption('TelegramBotName', 'modelgate_bot');
    await setOption('TelegramOAuthEnabled', 'true');
  });
  afterAll(async () => {
    await server.stop();
    await wechat.close();
  });

  it('signs in with a WeChat code: asks the WeChat server with its token, registers the openid', async () => {
    const client = server.client();
    const res = await client.get(`/api/oauth/wechat?code=${wechat.issueCode('openid-aaa')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '登录成功！', data: { role: 1 } });
    expect(res.body.data.username).toMatch(/^wechat_\d*$/);
    client.userId = res.body.data.id;
    expect((await client.get('/api/user/self')).body.data.wechat_id).toBe('openid-aaa');
    expect(wechat.calls.at(-1)?.headers.authorization).toBe('wechat-server-token');
    const again = await server.client().get(`/api/oauth/wechat?code=${wechat.issueCode('openid-aaa')}`);
    expect(again.body.data.id).toBe(res.body.data.id);
  });

  it('asks a user with a second factor for the second step after a WeChat sign-in; the session starts after it', async () => {
    const first = await server.client().get(`/api/oauth/wechat?code=${wechat.issueCode('openid-2fa')}`);
    const owner = server.client();
    owner.cookie = first.headers
      .getSetCookie()
      .find((line) => line.startsWith('session='))!
      .split(';')[0]!;
    owner.userId = first.body.data.id;
    const { app } = await enrolTotp(owner);
    const client = server.client();
    const res = await client.get(`/api/oauth/wechat?code=${wechat.issueCode('openid-2fa')}`);
    expect(res.body).toEqual({ success: true, message: '请输入两步验证码', data: { require_2fa: true, totp: true, passkey: false } });
    expect(client.cookie).toBe('');
    expect(client.pendingCookie).toMatch(/^login_pending=/);
    const done = await client.post('/api/user/login/2fa', { code: await nextCode(app) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.id).toBe(owner.userId);
    expect(client.cookie).toMatch(/^session=/);
  });

  it('refuses a code older than 3 minutes, a reused code and a malformed one', async () => {
    const code = wechat.issueCode('openid-bbb');
    wechat.clock.now += 3 * 60_000 + 1000;
    const expired = await server.client().get(`/api/oauth/wechat?code=${code}`);
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual({ success: false, message: '验证码错误或已过期', data: null });
    const used = wechat.issueCode('openid-bbb');
    expect((await server.client().get(`/api/oauth/wechat?code=${used}`)).status).toBe(200);
    expect((await server.client().get(`/api/oauth/wechat?code=${used}`)).status).toBe(400);
    expect((await server.client().get('/api/oauth/wechat?code=')).status).toBe(400);
    expect((await server.client().get('/api/oauth/wechat?code=%27%3B--')).status).toBe(400);
    expect((await server.client().get('/api/oauth/wechat')).status).toBe(400);
  });

  it('binds WeChat for a signed-in user only', async () => {
    expect((await server.client().get(`/api/oauth/wechat/bind?code=${wechat.issueCode('x')}`)).status).toBe(401);
    const wu = await createUserAndLogin(server, root.client, 'wu');
    const res = await wu.client.get(`/api/oauth/wechat/bind?code=${wechat.issueCode('openid-wu')}`);
    expect(res.body).toEqual({ success: true, message: '微信账户绑定成功！', data: null });
    const taken = await root.client.get(`/api/oauth/wechat/bind?code=${wechat.issueCode('openid-wu')}`);
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe('该 微信 账户已被绑定');
    expect((await wu.client.delete('/api/oauth/wechat/bind')).status).toBe(200);
    expect((await wu.client.get('/api/user/self')).body.data.wechat_id).toBe('');
  });

  it('refuses binds and unbinds for a banned user (disabling ended the session: 401) and unknown providers (400)', async () => {
    const ban = await createUserAndLogin(server, root.client, 'banned1');
    await root.client.post('/api/user/manage', { id: ban.userId, action: 'disable' });
    expect((await ban.client.get(`/api/oauth/wechat/bind?code=${wechat.issueCode('openid-ban')}`)).status).toBe(401);
    const fields = new URLSearchParams(signTelegramLogin(botToken, { id: 5, auth_date: Math.floor(Date.now() / 1000) })).toString();
    expect((await ban.client.get(`/api/oauth/telegram/bind?${fields}`)).status).toBe(401);
    expect((await ban.client.delete('/api/oauth/wechat/bind')).status).toBe(401);
    expect(
      await server.ctx.storage.db
        .selectFrom('users')
        .select(['wechat_id', 'telegram_id'])
        .where('id', '=', ban.userId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ wechat_id: '', telegram_id: '' });
    expect((await root.client.delete('/api/oauth/qq/bind')).status).toBe(400);
  });

  it('refuses WeChat when it is off or the server token is wrong', async () => {
    await setOption('WeChatServerToken', 'wrong');
    expect((await server.client().get(`/api/oauth/wechat?code=${wechat.issueCode('z')}`)).status).toBe(400);
    await setOption('WeChatServerToken', 'wechat-server-token');
    await setOption('WeChatAuthEnabled', 'false');
    const off = await server.client().get(`/api/oauth/wechat?code=${wechat.issueCode('z')}`);
    expect(off.status).toBe(403);
    expect(off.body.message).toBe('管理员未开启通过 微信 登录以及注册');
    await setOption('WeChatAuthEnabled', 'true');
  });

  const now = () => Math.floor(Date.now() / 1000);
  const widget = (extra: Record<string, string | number> = {}) =>
    signTelegramLogin(botToken, { id: 777001, first_name: 'Tele', last_name: 'Gram', username: 'telegrammer', auth_date: now(), ...extra });

  it('signs in with a correctly signed widget payload (the console adds lang)', async () => {
    const client = server.client();
    const res = await client.get(`/api/oauth/telegram/login?${query({ ...widget(), lang: 'zh' })}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ username: 'telegrammer', display_name: 'Tele Gram' });
    client.userId = res.body.data.id;
    expect((await client.get('/api/user/self')).body.data.telegram_id).toBe('777001');
  });

  it('refuses a forged hash, a changed field, an old auth_date and malformed fields with a 400', async () => {
    const forged = await server.client().get(`/api/oauth/telegram/login?${query({ ...widget(), hash: 'ab'.repeat(32) })}`);
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({ success: false, message: 'Telegram 登录信息校验失败', data: null });
    const changed = await server.client().get(`/api/oauth/telegram/login?${query({ ...widget(), id: '1' })}`);
    expect(changed.body.message).toBe('Telegram 登录信息校验失败');
    const otherBot = signTelegramLogin('999:other-bot', { id: 777001, auth_date: now() });
    expect((await server.client().get(`/api/oauth/telegram/login?${query(otherBot)}`)).status).toBe(400);
    const old = await server.client().get(`/api/oauth/telegram/login?${query(widget({ auth_date: now() - 86_400 - 60 }))}`);
    expect(old.status).toBe(400);
    expect(old.body.message).toBe('Telegram 登录信息已过期，请重新登录');
    expect((await server.client().get('/api/oauth/telegram/login')).status).toBe(400);
    expect((await server.client().get('/api/oauth/telegram/login?id=abc&auth_date=1&hash=zz')).status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'x']));
    expect((await server.client().get(`/api/oauth/telegram/login?${query({ ...widget(), ...many })}`)).status).toBe(400);
  });

  it('binds Telegram for a signed-in user only, one account per user', async () => {
    const fields = query(signTelegramLogin(botToken, { id: 888002, username: 'tg_bind', auth_date: now() }));
    expect((await server.client().get(`/api/oauth/telegram/bind?${fields}`)).status).toBe(401);
    const tess = await createUserAndLogin(server, root.client, 'tess');
    const res = await tess.client.get(`/api/oauth/telegram/bind?${fields}`);
    expect(res.body).toEqual({ success: true, message: 'Telegram 账户绑定成功！', data: null });
    const other = query(signTelegramLogin(botToken, { id: 888003, auth_date: now() }));
    expect((await tess.client.get(`/api/oauth/telegram/bind?${other}`)).body.message).toBe('你已绑定了一个 Telegram 账户，请先解绑');
    const login = await server.client().get(`/api/oauth/telegram/login?${fields}`);
    expect(login.body.data.id).toBe(tess.userId);
    expect((await tess.client.delete('/api/oauth/telegram/bind')).status).toBe(200);
  });
});
