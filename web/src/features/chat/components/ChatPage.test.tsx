import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { baseStatus, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

const withChats = (chats: unknown[]) => ({
  'GET /api/status': () => ok({ ...baseStatus, server_address: 'https://gate.example.com', chats }),
});

describe('embedded chat', { timeout: 60_000 }, () => {
  it('frames the link with the first enabled key and the server address', async () => {
    const { calls } = fakeServer({
      ...withChats([{ Web: 'https://chat.example.com/#/?key={key}&url={address}' }]),
      'GET /api/token/': () =>
        ok({
          items: [
            { key: 'disabled', status: 2 },
            { key: 'abc123', status: 1 },
          ],
          total: 2,
          page: 1,
          page_size: 100,
        }),
    });
    await renderRoute('/chat/0', { user: regularUser });
    const frame = (await screen.findByTitle('聊天')) as HTMLIFrameElement;
    // {address} is URL-encoded, as new-api fills it.
    expect(frame.getAttribute('src')).toBe('https://chat.example.com/#/?key=sk-abc123&url=https%3A%2F%2Fgate.example.com');
    const tokenCall = calls.find((call) => call.path === '/api/token/')!;
    expect([tokenCall.query.get('p'), tokenCall.query.get('size')]).toEqual(['1', '100']);
  });

  it('with no enabled token says so and goes to /token after 1.5 s', async () => {
    fakeServer({
      ...withChats([{ Web: 'https://chat.example.com/?key={key}' }]),
      'GET /api/token/': () => ok({ items: [{ key: 'x', status: 2 }], total: 1, page: 1, page_size: 100 }),
    });
    const { router } = await renderRoute('/chat/0', { user: regularUser });
    expect((await screen.findAllByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！')).length).toBeGreaterThan(0);
    expect(router.state.location.pathname).toBe('/chat/0');
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'), { timeout: 4000 });
  });

  it('reports a missing or broken chat configuration', async () => {
    fakeServer(withChats([]));
    await renderRoute('/chat/0', { user: regularUser });
    expect((await screen.findAllByText('请联系管理员配置聊天链接')).length).toBeGreaterThan(0);
  });

  it('fills {cherryConfig} with the base64 JSON Cherry Studio imports, and sends the browser to an app link', async () => {
    const assigned: string[] = [];
    const original = window.location;
    Object.defineProperty(window, 'location', {
      configurable: true,
      value: { ...original, origin: original.origin, assign: (url: string) => assigned.push(url) },
    });
    try {
      fakeServer({
        ...withChats([{ 'Cherry Studio': 'cherrystudio://providers/api-keys?v=1&data={cherryConfig}' }]),
        'GET /api/token/': () => ok({ items: [{ key: 'abc123', status: 1 }], total: 1, page: 1, page_size: 100 }),
      });
      await renderRoute('/chat/0', { user: regularUser });
      expect(await screen.findByText('正在打开聊天应用…')).toBeTruthy();
      await waitFor(() => expect(assigned).toHaveLength(1));
      const data = new URL(assigned[0]!.replace('cherrystudio://', 'https://x/')).searchParams.get('data')!;
      expect(JSON.parse(atob(data))).toEqual({ id: 'new-api', baseUrl: 'https://gate.example.com', apiKey: 'sk-abc123' });
    } finally {
      Object.defineProperty(window, 'location', { configurable: true, value: original });
    }
  });

  it('refuses a link it cannot open (javascript:, or a bare word such as new-api\u2019s fluentread)', async () => {
    fakeServer(withChats([{ Evil: 'javascript:alert(1)' }, { 'Fluent Read': 'fluentread' }]));
    await renderRoute('/chat/0', { user: regularUser });
    expect((await screen.findAllByText('聊天链接配置错误，请联系管理员')).length).toBeGreaterThan(0);
  });

  it('reports a malformed chat entry', async () => {
    fakeServer(withChats(['not an object']));
    await renderRoute('/chat2link', { user: regularUser });
    expect((await screen.findAllByText('聊天链接配置错误，请联系管理员')).length).toBeGreaterThan(0);
  });
});
