import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { baseStatus, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

const withChats = (chats: unknown[]) => ({ 'GET /api/status': () => ok({ ...baseStatus, server_address: 'https://gate.example.com', chats }) });

describe('embedded chat', { timeout: 60_000 }, () => {
  it('frames the link with the first enabled key and the server address', async () => {
    const { calls } = fakeServer({
      ...withChats([{ Web: 'https://chat.example.com/#/?key={key}&url={address}' }]),
      'GET /api/token/': () => ok({ items: [{ key: 'disabled', status: 2 }, { key: 'abc123', status: 1 }], total: 2, page: 1, page_size: 100 }),
    });
    await renderRoute('/chat/0', { user: regularUser });
    const frame = (await screen.findByTitle('聊天')) as HTMLIFrameElement;
    expect(frame.getAttribute('src')).toBe('https://chat.example.com/#/?key=sk-abc123&url=https://gate.example.com');
    const tokenCall = calls.find((call) => call.path === '/api/token/')!;
    expect([tokenCall.query.get('p'), tokenCall.query.get('size')]).toEqual(['1', '100']);
  });

  it('with no enabled token says so and goes to /token after 1.5 s', async () => {
    fakeServer({ ...withChats([{ Web: 'https://chat.example.com/?key={key}' }]), 'GET /api/token/': () => ok({ items: [{ key: 'x', status: 2 }], total: 1, page: 1, page_size: 100 }) });
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

  it('reports a malformed chat entry', async () => {
    fakeServer(withChats(['not an object']));
    await renderRoute('/chat2link', { user: regularUser });
    expect((await screen.findAllByText('聊天链接配置错误，请联系管理员')).length).toBeGreaterThan(0);
  });
});
