import { defaultChats } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The Chats option: new-api's default apps out of the box, and only well-formed, harmless links stored. */
describe('the Chats option', () => {
  let server: TestServer;
  let root: LoggedIn;
  const put = (value: unknown) =>
    root.client.put('/api/option/', { key: 'Chats', value: typeof value === 'string' ? value : JSON.stringify(value) });

  beforeAll(async () => {
    server = await startTestServer();
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server?.stop());

  it('ships new-api\u2019s default chat apps, in the status object too', async () => {
    expect(defaultChats.map((entry) => Object.keys(entry)[0])).toEqual([
      'Cherry Studio',
      'AionUI',
      'Lobe Chat Official Example',
      'AI as Workspace',
      'AMA',
      'OpenCat',
    ]);
    expect((await server.client().get('/api/status')).body.data.chats).toEqual(defaultChats);
    const listed = (await root.client.get('/api/option/')).body.data as { key: string; value: string }[];
    expect(JSON.parse(listed.find((option) => option.key === 'Chats')!.value)).toEqual(defaultChats);
  });

  it('stores web links, app links and new-api\u2019s bare hooks (fluentread), several names in one entry too', async () => {
    const chats = [
      { Web: 'https://chat.example.com/?key={key}' },
      { AMA: 'ama://set-api-key?server={address}&key={key}', 'Fluent Read': 'fluentread' },
    ];
    expect((await put(chats)).status).toBe(200);
    expect((await server.client().get('/api/status')).body.data.chats).toEqual(chats);
    expect((await put([])).status).toBe(200);
  });

  it.each([
    ['not an array', { Web: 'https://x' }, 'Chats 必须是 JSON 数组'],
    ['an entry that is not an object', ['https://x'], 'Chats 第 1 项必须是“名称: 链接”形式的对象'],
    ['an empty entry', [{}], 'Chats 第 1 项必须是“名称: 链接”形式的对象'],
    ['an empty name', [{ ' ': 'https://x' }], 'Chats 第 1 项的名称不能为空，且不能超过 64 个字符'],
    ['a name used twice', [{ Web: 'https://x' }, { Web: 'https://y' }], 'Chats 聊天应用名称 Web 重复'],
    ['an empty link', [{ Web: ' ' }], 'Chats 聊天应用 Web 的链接不能为空，且不能超过 4000 个字符'],
    ['a link that is not text', [{ Web: 42 }], 'Chats 聊天应用 Web 的链接不能为空，且不能超过 4000 个字符'],
    [
      'a javascript: link',
      [{ Evil: ' JavaScript:alert(document.cookie)' }],
      'Chats 聊天应用 Evil 的链接不能使用 javascript:、data: 等会执行代码或读取本地数据的协议',
    ],
    [
      'a data: link',
      [{ Evil: 'data:text/html,<script>alert(1)</script>' }],
      'Chats 聊天应用 Evil 的链接不能使用 javascript:、data: 等会执行代码或读取本地数据的协议',
    ],
    ['too many apps', Array.from({ length: 51 }, (_v, i) => ({ [`app ${i}`]: 'https://x' })), 'Chats 最多 50 个聊天应用'],
  ])('refuses %s with a 400 and keeps the stored value', async (_case, value, message) => {
    const res = await put(value);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message });
    expect((await server.client().get('/api/status')).body.data.chats).toEqual([]);
  });

  it('answers the refusal in English too', async () => {
    root.client.language = 'en';
    const res = await put([{ Evil: 'javascript:alert(1)' }]);
    root.client.language = 'zh-CN';
    expect(res.body.message).toBe(
      'Chats must not give the chat app Evil a javascript:, data: or other link that runs code or reads local data',
    );
  });
});
