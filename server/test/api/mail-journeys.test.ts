import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, login, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { closedPort } from '../helpers/hostile-upstream.js';
import { codeIn, resetLinkIn, selfSignedCertificate, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

async function setOptions(root: LoggedIn, options: Record<string, string>) {
  for (const [key, value] of Object.entries(options)) {
    const res = await root.client.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  }
}

const smtpOptions = (port: number, extra: Record<string, string> = {}) => ({
  SMTPServer: '127.0.0.1',
  SMTPPort: String(port),
  SMTPFrom: 'gate@example.com',
  SMTPAccount: '',
  SMTPToken: '',
  SMTPSSLEnabled: 'false',
  ...extra,
});

describe.each(storageKinds())('mail journeys against a real SMTP server on %s', (kind) => {
  let server: TestServer;
  let sink: SmtpSink;
  let root: LoggedIn;
  beforeAll(async () => {
    sink = await startSmtpSink({ account: { user: 'mailer', pass: 'smtp-secret-pass' } });
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
    await setOptions(root, {
      ...smtpOptions(sink.port, { SMTPAccount: 'mailer', SMTPToken: 'smtp-secret-pass' }),
      ServerAddress: 'https://gate.example.com',
      EmailVerificationEnabled: 'true',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
  });

  it('registers with the code read from the mail; the code works once', async () => {
    const res = await server.client().get('/api/verification?email=Alice@Example.com');
    expect(res.body).toEqual({ success: true, message: '验证码发送成功，请检查你的邮箱！', data: null });
    const mail = await sink.nextMail('alice@example.com');
    expect(mail.subject).toContain('邮箱验证邮件');
    expect(sink.logins.at(-1)).toEqual({ username: 'mailer', accepted: true });
    const code = codeIn(mail);
    expect(code).toMatch(/^\d{6}$/);

    const wrong = await server.client().post('/api/user/register', {
      username: 'alice',
      password: 'alice-pass1',
      password2: 'alice-pass1',
      email: 'alice@example.com',
      verification_code: '000000' === code ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('验证码错误或已过期');
    const done = await server.client().post('/api/user/register', {
      username: 'alice',
      password: 'alice-pass1',
      password2: 'alice-pass1',
      email: 'alice@example.com',
      verification_code: code,
    });
    expect(done.body).toEqual({ success: true, message: '注册成功！', data: null });
    const alice = await login(server.client(), 'alice', 'alice-pass1');
    expect((await alice.client.get('/api/user/self')).body.data.email).toBe('alice@example.com');
    // The same code again, for another account: used.
    const again = await server.client().post('/api/user/register', {
      username: 'alice2',
      password: 'alice-pass1',
      password2: 'alice-pass1',
      email: 'alice@example.com',
      verification_code: code,
    });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
  });

  it('refuses a taken, malformed, out-of-whitelist or alias address, and a second request within 30 s', async () => {
    expect((await server.client().get('/api/verification?email=alice@example.com')).body).toEqual({
      success: false,
      message: '邮箱地址已被占用',
      data: null,
    });
    for (const email of ['', 'not-an-address', 'a@', `${'x'.repeat(120)}@example.com`]) {
      const res = await server.client().get(`/api/verification?email=${encodeURIComponent(email)}`);
      expect(res.status, email).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect((await server.client().get('/api/verification?email=bob@example.com')).status).toBe(200);
    const soon = await server.client().get('/api/verification?email=bob@example.com');
    expect(soon.status).toBe(429);
    expect(soon.body.message).toBe('请求过于频繁，请 30 秒后再试');
    await sink.nextMail('bob@example.com');

    await setOptions(root, {
      EmailDomainRestrictionEnabled: 'true',
      EmailDomainWhitelist: 'example.com',
      EmailAliasRestrictionEnabled: 'true',
    });
    try {
      expect((await server.client().get('/api/verification?email=carol@elsewhere.org')).body.message).toBe(
        '管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中',
      );
      expect((await server.client().get(`/api/verification?email=${encodeURIComponent('carol+spam@example.com')}`)).body.message).toBe(
        '管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。',
      );
    } finally {
      await setOptions(root, { EmailDomainRestrictionEnabled: 'false', EmailAliasRestrictionEnabled: 'false' });
    }
    expect(sink.mails).toEqual([]);
  });

  it('binds a mailed address to the signed-in user, once across users', async () => {
    const dave = await createUserAndLogin(server, root.client, 'dave');
    const erin = await createUserAndLogin(server, root.client, 'erin');
    expect((await dave.client.get('/api/verification?email=shared@example.com')).status).toBe(200);
    const code = codeIn(await sink.nextMail('shared@example.com'));
    expect(
      (await erin.client.get(`/api/oauth/email/bind?email=shared@example.com&code=000000${code === '000000' ? '1' : ''}`)).body.message,
    ).toBe('验证码错误或已过期');
    expect((await dave.client.get(`/api/oauth/email/bind?email=shared@example.com&code=${code}`)).body).toEqual({
      success: true,
      message: '邮箱账户绑定成功！',
      data: null,
    });
    expect((await dave.client.get('/api/user/self')).body.data.email).toBe('shared@example.com');
    // The address is now taken: no code is sent for it, so erin cannot bind it.
    expect((await erin.client.get('/api/verification?email=shared@example.com')).status).toBe(409);
    expect((await server.client().get(`/api/oauth/email/bind?email=shared@example.com&code=${code}`)).status).toBe(401);
    expect((await erin.client.get('/api/oauth/email/bind?email=shared@example.com')).body.message).toBe('请输入邮箱验证码！');
  });

  it('resets a password through the mailed link: a new password that signs in, old sessions ended, the link used once', async () => {
    const frank = await createUserAndLogin(server, root.client, 'frank');
    await server.ctx.storage.db.updateTable('users').set({ email: 'frank@example.com' }).where('id', '=', frank.userId).execute();
    const request = await server.client().get('/api/reset_password?email=FRANK@example.com');
    expect(request.body).toEqual({ success: true, message: '重置邮件发送成功，请检查邮箱！', data: null });
    const link = resetLinkIn(await sink.nextMail('frank@example.com'));
    expect(`${link.origin}${link.pathname}`).toBe('https://gate.example.com/user/reset');
    expect(link.searchParams.get('email')).toBe('frank@example.com');

    // Follow the link as the confirm screen does.
    const confirm = await server
      .client()
      .post('/api/user/reset', { email: link.searchParams.get('email'), token: link.searchParams.get('token') });
    expect(confirm.status).toBe(200);
    const password = confirm.body.data as string;
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    expect((await frank.client.get('/api/user/self')).status).toBe(401);
    expect((await server.client().post('/api/user/login', { username: 'frank', password: frank.password })).status).toBe(400);
    await login(server.client(), 'frank', password);
    const reuse = await server.client().post('/api/user/reset', { email: 'frank@example.com', token: link.searchParams.get('token') });
    expect(reuse.body).toEqual({ success: false, message: '重置链接非法或已过期', data: null });
    expect((await server.client().post('/api/user/reset', { email: 'frank@example.com', token: 'forged' })).status).toBe(400);
    expect((await server.client().post('/api/user/reset', { email: 'frank@example.com' })).status).toBe(400);
  });

  it('builds the reset link from ServerAddress, never from the Host the caller sends', async () => {
    const gina = await createUserAndLogin(server, root.client, 'gina');
    await server.ctx.storage.db.updateTable('users').set({ email: 'gina@example.com' }).where('id', '=', gina.userId).execute();
    const spoofed = { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example:8443', 'x-forwarded-proto': 'http' };
    const res = await server.client().get('/api/reset_password?email=gina@example.com', { headers: spoofed });
    expect(res.body).toEqual({ success: true, message: '重置邮件发送成功，请检查邮箱！', data: null });
    const mail = await sink.nextMail('gina@example.com');
    expect(resetLinkIn(mail).href.startsWith('https://gate.example.com/user/reset?')).toBe(true);
    expect(`${mail.html}${mail.text}`).not.toContain('evil.example');
  });

  it('refuses every reset while ServerAddress is empty: no token, no mail, known and unknown alike', async () => {
    const hana = await createUserAndLogin(server, root.client, 'hana');
    await server.ctx.storage.db.updateTable('users').set({ email: 'hana@example.com' }).where('id', '=', hana.userId).execute();
    await setOptions(root, { ServerAddress: '' });
    const mailsBefore = sink.mails.length;
    const loginsBefore = sink.logins.length;
    try {
      for (const email of ['hana@example.com', 'nobody-else@example.com']) {
        const res = await server.client().get(`/api/reset_password?email=${email}`, { headers: { host: 'evil.example:8443' } });
        expect(res.status, email).toBe(403);
        expect(res.body, email).toEqual({ success: false, message: '管理员未设置服务器地址，无法发送密码重置邮件', data: null });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The mail server was not even contacted.
      expect(sink.mails.length).toBe(mailsBefore);
      expect(sink.logins.length).toBe(loginsBefore);
    } finally {
      await setOptions(root, { ServerAddress: 'https://gate.example.com/' });
    }
    // Nothing was spent while refused: the 30-second wait starts only now.
    expect((await server.client().get('/api/reset_password?email=hana@example.com')).status).toBe(200);
    expect(resetLinkIn(await sink.nextMail('hana@example.com')).origin).toBe('https://gate.example.com');
  });

  it('answers an unknown address exactly like a known one, and mails nothing', async () => {
    const res = await server.client().get('/api/reset_password?email=nobody@example.com');
    expect(res.body).toEqual({ success: true, message: '重置邮件发送成功，请检查邮箱！', data: null });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.mails.filter((mail) => mail.to.includes('nobody@example.com'))).toEqual([]);
  });
});

describe('mail over implicit TLS with SMTP auth, and mail servers that fail', () => {
  const tls = selfSignedCertificate();
  let sink: SmtpSink;
  let server: TestServer;
  let root: LoggedIn;
  const logLines: string[] = [];
  beforeAll(async () => {
    sink = await startSmtpSink({ secure: tls, account: { user: 'tls-user', pass: 'tls-secret-pass' } });
    server = await startTestServer({
      env: { EXTRA_CA_FILE: tls.certFile, LOG_LEVEL: 'info' },
      loggerStream: new Writable({
        write(chunk, _enc, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    });
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
  });

  it('delivers over TLS (SMTPSSLEnabled) to a server whose certificate EXTRA_CA_FILE trusts', async () => {
    await setOptions(root, smtpOptions(sink.port, { SMTPSSLEnabled: 'true', SMTPAccount: 'tls-user', SMTPToken: 'tls-secret-pass' }));
    expect((await server.client().get('/api/verification?email=tls@example.com')).status).toBe(200);
    expect(codeIn(await sink.nextMail('tls@example.com'))).toMatch(/^\d{6}$/);
  });

  it('gives a clear 503 and logs the reason, never the SMTP password, when sign-in at the mail server fails', async () => {
    await setOptions(root, smtpOptions(sink.port, { SMTPSSLEnabled: 'true', SMTPAccount: 'tls-user', SMTPToken: 'wrong-secret-pass' }));
    const res = await server.client().get('/api/verification?email=denied@example.com');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: '邮件发送失败，请稍后重试或联系管理员', data: null });
    expect(logLines.some((line) => line.includes('mail not sent'))).toBe(true);
    expect(logLines.join('')).not.toContain('wrong-secret-pass');
  });

  it('gives the same 503 when the mail server is down, refuses the mail, or speaks no TLS', async () => {
    await setOptions(root, smtpOptions(await closedPort()));
    expect((await server.client().get('/api/verification?email=down@example.com')).status).toBe(503);
    // The reset of an unknown address fails alike, so a down server reveals nothing about accounts.
    await setOptions(root, { ServerAddress: 'https://gate.example.com' });
    expect((await server.client().get('/api/reset_password?email=down-unknown@example.com')).status).toBe(503);
    const refusing = await startSmtpSink({ refuse: true });
    try {
      await setOptions(root, smtpOptions(refusing.port));
      expect((await server.client().get('/api/verification?email=refused@example.com')).body.message).toBe(
        '邮件发送失败，请稍后重试或联系管理员',
      );
      await setOptions(root, smtpOptions(refusing.port, { SMTPSSLEnabled: 'true' }));
      expect((await server.client().get('/api/verification?email=notls@example.com')).status).toBe(503);
    } finally {
      await refusing.close();
    }
    await setOptions(root, { SMTPServer: '' });
    expect((await server.client().get('/api/verification?email=none@example.com')).body).toEqual({
      success: false,
      message: '管理员未配置 SMTP 服务器，无法发送邮件',
      data: null,
    });
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('codes in Redis: one instance sends, another checks', () => {
  let sink: SmtpSink;
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    sink = await startSmtpSink();
    const env = { REDIS_CONN_STRING: process.env.TEST_REDIS_URL ?? '', REDIS_KEY_PREFIX: `mg-mail-${randomBytes(4).toString('hex')}:` };
    first = await startTestServer({ env });
    second = await startTestServer({ env, database: first.database });
    const root = await setupRootAndLogin(first);
    await setOptions(root, { ...smtpOptions(sink.port), EmailVerificationEnabled: 'true' });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await sink?.close();
  });

  it('registers on the second instance with the code the first one mailed', async () => {
    expect((await first.client().get('/api/verification?email=cluster@example.com')).status).toBe(200);
    const code = codeIn(await sink.nextMail('cluster@example.com'));
    // The 30-second wait is shared too.
    expect((await second.client().get('/api/verification?email=cluster@example.com')).status).toBe(429);
    const res = await second.client().post('/api/user/register', {
      username: 'clustered',
      password: 'cluster-pass',
      password2: 'cluster-pass',
      email: 'cluster@example.com',
      verification_code: code,
    });
    expect(res.body).toEqual({ success: true, message: '注册成功！', data: null });
  });
});
