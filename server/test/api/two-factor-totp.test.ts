import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { codeOfStep, enrolTotp, nextCode, type Authenticator } from '../helpers/two-factor.js';

/** TOTP two-factor sign-in through the API: enrolment, the second step, disabling, recovery codes, the admin's reset. */
describe('two-factor sign-in with TOTP', () => {
  let server: TestServer;
  let root: LoggedIn;
  let counter = 0;

  /** A new user signed in with a password (no second factor yet). */
  async function newUser() {
    counter += 1;
    return createUserAndLogin(server, root.client, `totp${counter}`);
  }

  /** The first step of a sign-in: answers the body and the client holding the pending-login cookie. */
  async function firstStep(username: string, password: string) {
    const client = server.client();
    const res = await client.post('/api/user/login', { username, password });
    expect(res.status, res.text).toBe(200);
    return { client, res };
  }

  beforeAll(async () => {
    server = await startTestServer({ env: { TWO_FACTOR_RATE_LIMIT: '1000', TWO_FACTOR_IP_RATE_LIMIT: '1000' } });
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server.stop());

  it('enrols with a secret, an otpauth URI and a first code, and answers ten recovery codes once', async () => {
    const user = await newUser();
    expect((await user.client.get('/api/user/2fa/status')).body.data).toMatchObject({
      enabled: false,
      backup_codes_remaining: 0,
      required: false,
    });
    const setup = await user.client.post('/api/user/2fa/setup');
    expect(setup.status).toBe(200);
    const { secret, otpauth_url: uri } = setup.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.host).toBe('totp');
    expect(decodeURIComponent(parsed.pathname)).toBe(`/ModelGate:totp${counter}`);
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(parsed.searchParams.get('issuer')).toBe('ModelGate');

    const app: Authenticator = { secret, lastStep: 0 };
    const wrong = await user.client.post('/api/user/2fa/enable', {
      code: '000000' === (await codeOfStep(app, Math.floor(Date.now() / 30000))) ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('验证码或备用码错误，请重试');
    const enabled = await user.client.post('/api/user/2fa/enable', { code: await nextCode(app) });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.message).toBe('两步验证启用成功');
    const codes: string[] = enabled.body.data.backup_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/);

    // Stored hashed: neither the codes nor anything of them is in the table.
    const rows = await server.ctx.storage.db.selectFrom('two_fa_backup_codes').selectAll().where('user_id', '=', user.userId).execute();
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(codes.map((code) => code.replace('-', ''))).not.toContain(row.code_hash);
    expect(JSON.stringify(rows)).not.toContain(codes[0]!.slice(0, 5));

    // The status no longer gives them; setting up again is refused while enabled.
    const status = await user.client.get('/api/user/2fa/status');
    expect(status.body.data).toMatchObject({ enabled: true, backup_codes_remaining: 10 });
    expect(status.text).not.toContain(codes[0]);
    expect((await user.client.post('/api/user/2fa/setup')).body.message).toBe('两步验证已启用，请先禁用后重新设置');
    expect((await user.client.post('/api/user/2fa/enable', { code: '123456' })).body.message).toBe('请先完成两步验证初始化设置');
  });

  it('asks for the second step after the password and sets the session only after it', async () => {
    const user = await newUser();
    const { app } = await enrolTotp(user.client);
    const { client, res } = await firstStep(`totp${counter}`, user.password);
    expect(res.body).toEqual({ success: true, message: '请输入两步验证码', data: { require_2fa: true, totp: true, passkey: false } });
    // No session cookie: the pending state is its own short-lived cookie, for the second-step routes only.
    expect(client.cookie).toBe('');
    const pending = res.headers.getSetCookie().find((line) => line.startsWith('login_pending='))!;
    expect(pending).toMatch(/HttpOnly/i);
    expect(pending).toMatch(/SameSite=Strict/i);
    expect(pending).toMatch(/Path=\/api\/user\/login/);
    expect(pending).toMatch(/Max-Age=300/);
    client.userId = user.userId;
    expect((await client.get('/api/user/self')).status).toBe(401);
    // The pending cookie is no session, even placed where the session cookie goes.
    const forged = server.client();
    forged.cookie = client.pendingCookie.replace('login_pending=', 'session=');
    forged.userId = user.userId;
    expect((await forged.get('/api/user/self')).status).toBe(401);

    expect((await client.post('/api/user/login/2fa', { code: '' })).body.message).toBe('请输入验证码');
    const second = await client.post('/api/user/login/2fa', { code: await nextCode(app) });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ success: true, message: '登录成功！', data: { id: user.userId, username: `totp${counter}` } });
    expect(client.cookie).toMatch(/^session=/);
    expect(client.pendingCookie).toBe('');
    expect((await client.get('/api/user/self')).status).toBe(200);
  });

  it('refuses a replayed code, a second step without the first, and a pending state from before a change', async () => {
    const user = await newUser();
    const { app } = await enrolTotp(user.client);
    const code = await nextCode(app);
    const first = await firstStep(`totp${counter}`, user.password);
    expect((await first.client.post('/api/user/login/2fa', { code })).status).toBe(200);
    // The same code again (a second browser within its 30 seconds): refused.
    const again = await firstStep(`totp${counter}`, user.password);
    const replay = await again.client.post('/api/user/login/2fa', { code });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe('验证码或备用码错误，请重试');
    // An older step's code is refused too.
    expect((await again.client.post('/api/user/login/2fa', { code: await codeOfStep(app, app.lastStep - 1) })).status).toBe(400);
    // No pending cookie, or a forged one: refused before any code is checked.
    const bare = await server.client().post('/api/user/login/2fa', { code: '123456' });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe('会话已过期，请重新登录');
    const forged = server.client();
    forged.pendingCookie = `login_pending=${user.userId}.0.9999999999.forged`;
    expect((await forged.post('/api/user/login/2fa', { code: '123456' })).body.message).toBe('会话已过期，请重新登录');
    // The user changes the password in between: the pending state from before ends.
    const stale = await firstStep(`totp${counter}`, user.password);
    await user.client.put('/api/user/self', { password: 'brand-new-pass', original_password: user.password });
    const afterChange = await stale.client.post('/api/user/login/2fa', { code: await nextCode(app) });
    expect(afterChange.body.message).toBe('会话已过期，请重新登录');
  }, 70_000);

  it('signs in with a recovery code once, and never with the same code again', async () => {
    const user = await newUser();
    const { recoveryCodes } = await enrolTotp(user.client);
    const first = await firstStep(`totp${counter}`, user.password);
    expect((await first.client.post('/api/user/login/2fa', { code: recoveryCodes[3]!.toUpperCase() })).status).toBe(200);
    const second = await firstStep(`totp${counter}`, user.password);
    expect((await second.client.post('/api/user/login/2fa', { code: recoveryCodes[3] })).body.message).toBe('验证码或备用码错误，请重试');
    // Spaces and no dash are the same code.
    expect((await second.client.post('/api/user/login/2fa', { code: ` ${recoveryCodes[4]!.replace('-', ' ')} ` })).status).toBe(200);
    expect((await user.client.get('/api/user/2fa/status')).body.data.backup_codes_remaining).toBe(8);
  });

  it('regenerates recovery codes with a current code; the old ones stop working', async () => {
    const user = await newUser();
    const { app, recoveryCodes } = await enrolTotp(user.client);
    expect((await user.client.post('/api/user/2fa/backup_codes', { code: recoveryCodes[0] })).body.message).toBe(
      '验证码或备用码错误，请重试',
    );
    const renewed = await user.client.post('/api/user/2fa/backup_codes', { code: await nextCode(app) });
    expect(renewed.status, renewed.text).toBe(200);
    const fresh: string[] = renewed.body.data.backup_codes;
    expect(fresh).toHaveLength(10);
    const login1 = await firstStep(`totp${counter}`, user.password);
    expect((await login1.client.post('/api/user/login/2fa', { code: recoveryCodes[1] })).status).toBe(400);
    expect((await login1.client.post('/api/user/login/2fa', { code: fresh[1] })).status).toBe(200);
  }, 70_000);

  it('disables with a current code (not a wrong or replayed one), after which the password alone signs in', async () => {
    const user = await newUser();
    const { app } = await enrolTotp(user.client);
    expect((await user.client.post('/api/user/2fa/disable', { code: await codeOfStep(app, app.lastStep) })).status).toBe(400);
    expect((await user.client.post('/api/user/2fa/disable', {})).body.message).toBe('请输入验证码');
    const disabled = await user.client.post('/api/user/2fa/disable', { code: await nextCode(app) });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.message).toBe('两步验证已禁用');
    expect((await user.client.get('/api/user/2fa/status')).body.data.enabled).toBe(false);
    expect(await server.ctx.storage.db.selectFrom('two_fa_backup_codes').select('id').where('user_id', '=', user.userId).execute()).toEqual(
      [],
    );
    const { res } = await firstStep(`totp${counter}`, user.password);
    expect(res.body.message).toBe('登录成功！');
    expect((await user.client.post('/api/user/2fa/disable', { code: '123456' })).body.message).toBe('用户未启用两步验证');
  }, 70_000);

  it('ends the other sessions when a factor is added or removed; the browser that changed it stays signed in', async () => {
    const user = await newUser();
    const other = await login(server.client(), `totp${counter}`, user.password);
    const { app } = await enrolTotp(user.client);
    expect((await other.client.get('/api/user/self')).status).toBe(401);
    expect((await user.client.get('/api/user/self')).status).toBe(200);
    // A second browser signs in with both steps, then the first disables TOTP: the second is signed out.
    const { client } = await firstStep(`totp${counter}`, user.password);
    client.userId = user.userId;
    expect((await client.post('/api/user/login/2fa', { code: await nextCode(app) })).status).toBe(200);
    expect((await client.get('/api/user/self')).status).toBe(200);
    expect((await user.client.post('/api/user/2fa/disable', { code: await nextCode(app) })).status).toBe(200);
    expect((await client.get('/api/user/self')).status).toBe(401);
    expect((await user.client.get('/api/user/self')).status).toBe(200);
  }, 70_000);

  it('lets an admin reset the TOTP of a lower-role user, ending their sessions; checks the role on the server', async () => {
    const user = await newUser();
    await enrolTotp(user.client);
    const admin = await createUserAndLogin(server, root.client, `totpadm${counter}`, 10);
    // A regular user cannot reset anyone; an admin cannot reset another admin or the root.
    expect((await user.client.delete(`/api/user/${user.userId}/2fa`)).status).toBe(403);
    expect((await admin.client.delete(`/api/user/${root.userId}/2fa`)).status).toBe(403);
    expect((await admin.client.delete('/api/user/999999/2fa')).status).toBe(404);
    expect((await admin.client.delete('/api/user/abc/2fa')).status).toBe(400);
    const reset = await admin.client.delete(`/api/user/${user.userId}/2fa`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.message).toBe('用户两步验证已重置');
    expect((await user.client.get('/api/user/self')).status).toBe(401);
    expect((await firstStep(`totp${counter}`, user.password)).res.body.message).toBe('登录成功！');
    expect((await admin.client.delete(`/api/user/${user.userId}/2fa`)).body.message).toBe('用户未启用两步验证');
  });

  it('makes admins without a second factor enrol when TwoFactorRequiredForAdmins is on', async () => {
    const plain = await newUser();
    const admin = await createUserAndLogin(server, root.client, `totpreq${counter}`, 10);
    // The root cannot require it before holding a second factor itself (it would be shut out of the settings).
    const early = await root.client.put('/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'true' });
    expect(early.status).toBe(400);
    expect(early.body.message).toBe('请先为自己的账户启用两步验证或 Passkey');
    await enrolTotp(root.client);
    expect((await root.client.put('/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'true' })).status).toBe(200);
    try {
      const { res } = await firstStep(`totpreq${counter}`, admin.password);
      expect(res.body.data.require_2fa_setup).toBe(true);
      const blocked = await admin.client.get('/api/user/?p=1');
      expect(blocked.status).toBe(403);
      expect(blocked.body.message).toBe('管理员账户必须先启用两步验证或 Passkey');
      expect((await admin.client.get('/api/token/')).status).toBe(403);
      // What enrolment needs stays open.
      expect((await admin.client.get('/api/user/self')).status).toBe(200);
      expect((await admin.client.get('/api/user/2fa/status')).body.data.required).toBe(true);
      // The console's playground calls are held back too, in the OpenAI shape and the caller's language.
      const playground = await admin.client.post('/pg/chat/completions', {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(playground.status).toBe(403);
      expect(playground.body.error).toMatchObject({ code: 'second_factor_required', message: '管理员账户必须先启用两步验证或 Passkey' });
      const english = await admin.client.request(
        'POST',
        '/pg/chat/completions',
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'accept-language': 'en' } },
      );
      expect(english.body.error.message).toBe('Administrator accounts must enable two-factor authentication or a passkey first');
      // Regular users are not concerned.
      expect((await plain.client.get('/api/token/')).status).toBe(200);
      const plainCall = await plain.client.post('/pg/chat/completions', {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(plainCall.body.error?.code).not.toBe('second_factor_required');
      await enrolTotp(admin.client);
      expect(
        (await admin.client.post('/pg/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).body.error
          ?.code,
      ).not.toBe('second_factor_required');
      expect((await admin.client.get('/api/user/?p=1')).status).toBe(200);
      expect((await admin.client.get('/api/user/2fa/status')).body.data.required).toBe(false);
    } finally {
      expect((await root.client.put('/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'false' })).status).toBe(200);
    }
  });
});
