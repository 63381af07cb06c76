import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, rootPassword, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay } from '../helpers/relay-fixtures.js';
import { codeIn, resetLinkIn, startSmtpSink } from '../helpers/smtp-sink.js';
import { startFixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The management API answers in the caller's language: the console's Accept-Language, English without one. */
describe('management API messages in the caller\u2019s language', () => {
  let server: TestServer;
  let root: LoggedIn;
  let mock: MockOpenAi;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  const signIn = (language: string | null) => {
    const client = server.client();
    client.language = language;
    return client.post('/api/user/login', { username: 'root', password: 'wrong-password' });
  };

  it.each([
    [null, 'Incorrect username or password, or the user is banned'],
    ['en', 'Incorrect username or password, or the user is banned'],
    ['en-US,en;q=0.9', 'Incorrect username or password, or the user is banned'],
    ['fr-FR,fr;q=0.9', 'Incorrect username or password, or the user is banned'],
    ['zh', '用户名或密码错误，或用户已被封禁'],
    ['zh-CN,zh;q=0.9,en;q=0.8', '用户名或密码错误，或用户已被封禁'],
    ['zh-CN;q=0.2, en;q=0.8', 'Incorrect username or password, or the user is banned'],
  ])('answers a failed sign-in for Accept-Language %j in its language', async (language, message) => {
    const res = await signIn(language);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('translates success messages, guard refusals, validation problems and the 404 alike', async () => {
    const english = server.client();
    english.language = 'en';
    const signedIn = await english.post('/api/user/login', { username: 'root', password: rootPassword });
    expect(signedIn.body).toMatchObject({ success: true, message: 'Signed in!' });

    const anonymous = server.client();
    anonymous.language = 'en';
    expect((await anonymous.get('/api/user/self')).body).toEqual({
      success: false,
      message: 'Not allowed: not signed in and no access token given',
      data: null,
    });
    anonymous.language = 'zh';
    expect((await anonymous.get('/api/user/self')).body.message).toBe('无权进行此操作，未登录且未提供 access token');

    const root = english;
    root.userId = signedIn.body.data.id;
    expect((await root.get('/api/log/?page_size=abc')).body.message).toBe('page_size: page_size must be a number');
    const option = await root.put('/api/option/', { key: 'GroupRatio', value: '[1]' });
    expect(option.body).toEqual({ success: false, message: 'GroupRatio must be a JSON object', data: null });

    for (const [language, message] of [
      ['en', 'No such API endpoint'],
      ['zh-CN', '接口不存在'],
    ]) {
      const res = await fetch(`${server.url}/api/no-such-route`, { headers: { 'accept-language': language! } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, message, data: null });
      // Still an /api answer: its security headers are set.
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('shows a usage log\u2019s details in the viewer\u2019s language', async () => {
    const userId = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, userId);
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: mock.url, models: ['gpt-4o-mini'] });
    const answer = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).toBe(200);
    await answer.json();
    await flushRelay(server.ctx);

    const stored = await server.ctx.storage.db.selectFrom('logs').select('content').where('user_id', '=', userId).executeTakeFirstOrThrow();
    const ratios = /^模型倍率 ([\d.]+)，补全倍率 ([\d.]+)，分组倍率 ([\d.]+)$/.exec(stored.content);
    expect(ratios, stored.content).not.toBeNull();
    const contentFor = async (language: string) => {
      root.client.language = language;
      const res = await root.client.get(
        `/api/log/?type=2&token_name=${encodeURIComponent((await server.ctx.storage.db.selectFrom('tokens').select('name').where('id', '=', token.id).executeTakeFirstOrThrow()).name)}`,
      );
      return res.body.data.items.map((item: { content: string }) => item.content);
    };
    expect(await contentFor('en')).toEqual([`Model ratio ${ratios![1]}, completion ratio ${ratios![2]}, group ratio ${ratios![3]}`]);
    expect(await contentFor('zh-CN')).toEqual([stored.content]);
  });

  it('describes the default groups and the channel form in the viewer\u2019s language', async () => {
    root.client.language = 'en';
    expect((await root.client.get('/api/user/self/groups')).body.data).toMatchObject({
      default: { desc: 'Default group', ratio: 1 },
      vip: { desc: 'VIP group' },
    });
    expect((await root.client.get('/api/pricing')).body.usable_group).toEqual({ default: 'Default group', vip: 'VIP group' });
    const types = (await root.client.get('/api/channel/types')).body.data as Array<{ type: number; displayName: string; keyHint: string }>;
    expect(types.find((type) => type.type === 8)).toMatchObject({ displayName: 'Custom channel', keyHint: 'Enter the API key (Bearer)' });
    expect(types.filter((type) => /[\u4e00-\u9fff]/.test(JSON.stringify(type)))).toEqual([]);

    // An admin's own description is theirs, in every language.
    await root.client.put('/api/option/', { key: 'UserUsableGroups', value: JSON.stringify({ default: '默认分组', vip: '企业客户专用' }) });
    expect((await root.client.get('/api/user/self/groups')).body.data).toMatchObject({
      default: { desc: 'Default group' },
      vip: { desc: '企业客户专用' },
    });

    root.client.language = 'zh-CN';
    expect((await root.client.get('/api/user/self/groups')).body.data).toMatchObject({ default: { desc: '默认分组' } });
    expect((await root.client.get('/api/channel/types')).body.data.find((type: { type: number }) => type.type === 8).displayName).toBe(
      '自定义渠道',
    );
  });

  it('mails a verification code and a reset link in the language of the person who asked', async () => {
    const sink = await startSmtpSink();
    try {
      root.client.language = 'zh-CN';
      const options = {
        SMTPServer: '127.0.0.1',
        SMTPPort: String(sink.port),
        SMTPFrom: 'gate@example.com',
        SMTPAccount: '',
        SMTPToken: '',
        SMTPSSLEnabled: 'false',
        ServerAddress: 'https://gate.example.com',
      };
      for (const [key, value] of Object.entries(options)) expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);

      const english = server.client();
      english.language = 'en-GB,en;q=0.9';
      expect((await english.get('/api/verification?email=ann@example.com')).body.message).toBe(
        'Verification code sent. Please check your inbox!',
      );
      const englishMail = await sink.nextMail('ann@example.com');
      expect(englishMail.subject).toBe('ModelGate email verification');
      expect(englishMail.html.trim()).toBe(
        `<p>Hello, you are verifying your email address for ModelGate.</p><p>Your verification code is: <strong>${codeIn(englishMail)}</strong></p><p>The code is valid for 10 minutes. If you did not ask for this, ignore this email.</p>`,
      );

      const chinese = server.client();
      expect((await chinese.get('/api/verification?email=bo@example.com')).body.message).toBe('验证码发送成功，请检查你的邮箱！');
      expect((await sink.nextMail('bo@example.com')).subject).toBe('ModelGate邮箱验证邮件');

      const carol = await createUserAndLogin(server, root.client, 'carol');
      await root.client.put('/api/user/', { id: carol.userId, email: 'carol@example.com' });
      expect((await english.get('/api/reset_password?email=carol@example.com')).body.message).toBe(
        'Reset email sent. Please check your inbox!',
      );
      const reset = await sink.nextMail('carol@example.com');
      expect(reset.subject).toBe('ModelGate password reset');
      const link = resetLinkIn(reset);
      expect(reset.html).toContain(`<p>Click <a href="${link.href.replace(/&/g, '&amp;')}">here</a> to reset it.</p>`);
    } finally {
      await sink.close();
    }
  });

  it('gives the reason a failed channel test disabled a channel in the viewer’s language', async () => {
    const upstream = await startFixtureUpstream();
    try {
      root.client.language = 'zh-CN';
      expect((await root.client.put('/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' })).status).toBe(200);
      const id = await createRelayChannel(server.ctx, { key: 'sk-revoked', baseURL: upstream.url, models: ['gpt-x'], testModel: 'gpt-x' });
      upstream.reply({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }),
      });
      expect((await root.client.get(`/api/channel/test/${id}`)).body).toMatchObject({
        success: false,
        message: 'Incorrect API key provided',
      });
      const reasonIn = async (language: string) => {
        root.client.language = language;
        const listed = (await root.client.get('/api/channel/?p=1&page_size=100&id_sort=true')).body.data.items.find(
          (item: { id: number }) => item.id === id,
        );
        const searched = (await root.client.get(`/api/channel/search?keyword=${id}`)).body.data.items[0];
        expect(searched.other_info).toBe(listed.other_info);
        return JSON.parse(listed.other_info).status_reason;
      };
      await expect.poll(() => reasonIn('zh-CN')).toBe('测试失败 status 401: Incorrect API key provided');
      expect(await reasonIn('en')).toBe('Test failed, status 401: Incorrect API key provided');
    } finally {
      await upstream.close();
    }
  });
});
