import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

/** A /pg/chat/completions answer whose events are released one by one by the test. */
function gatedStream(events: string[]) {
  let release: () => void = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const encoder = new TextEncoder();
      for (const event of events) {
        await new Promise<void>((resolve) => (release = resolve));
        controller.enqueue(encoder.encode(event));
      }
      controller.close();
    },
  });
  return { stream, next: () => release() };
}

const delta = (text: string) => `data: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\n`;

function server(answer: () => Response) {
  const bodies: unknown[] = [];
  const headers: Record<string, string>[] = [];
  const { fetchMock } = fakeServer({
    'GET /api/user/self/groups': () => ok({ default: { desc: '默认分组', ratio: 1 } }),
    'GET /api/user/models': () => ok(['gpt-4o-mini', 'gpt-4o']),
  });
  const original = fetchMock.getMockImplementation()!;
  fetchMock.mockImplementation(async (input: string, init?: RequestInit) => {
    if (input !== '/pg/chat/completions') return original(input, init);
    bodies.push(JSON.parse(String(init?.body)));
    headers.push(init?.headers as Record<string, string>);
    return answer();
  });
  return Object.assign(bodies, { headers });
}

const lastReply = () => [...document.querySelectorAll('[data-role="assistant"]')].at(-1) as HTMLElement;

describe('playground', { timeout: 60_000 }, () => {
  it("opens empty with a placeholder, at the spec's defaults (temperature and max tokens not sent)", async () => {
    const bodies = server(() => new Response('data: [DONE]\n\n', { headers: { 'Content-Type': 'text/event-stream' } }));
    await renderRoute('/playground', { user: regularUser });
    expect(await screen.findByText('还没有消息。选择模型并发送消息即可试用，这里的调用会消耗您的额度。')).toBeTruthy();
    expect(document.querySelectorAll('[data-role]')).toHaveLength(0);
    expect(screen.queryByText('未登录或登录已过期，请重新登录')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /显示模型配置/ }));
    expect(await screen.findByText('温度：上游默认')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('输入消息'), { target: { value: 'Hi' } });
    fireEvent.click(screen.getByRole('button', { name: /发\s*送/ }));
    await waitFor(() => expect(lastReply().dataset.status).toBe('complete'));
    expect(bodies[0]).toEqual({
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Hi' },
      ],
      model: 'gpt-4o-mini',
      group: 'default',
      stream: true,
    });
    expect(bodies.headers[0]).toMatchObject({ 'Accept-Language': 'zh', 'New-Api-User': String(regularUser.id) });
  });

  it('says the session expired on ?expired=true', async () => {
    server(() => new Response('data: [DONE]\n\n'));
    await renderRoute('/playground?expired=true', { user: regularUser, language: 'en' });
    expect(await screen.findByText('Not logged in or login expired, please log in again')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
  });

  it('streams: loading, then incomplete text piece by piece, then complete; no system message when empty', async () => {
    const gate = gatedStream([delta('Hel'), delta('lo'), 'data: [DONE]\n\n']);
    const bodies = server(() => new Response(gate.stream, { headers: { 'Content-Type': 'text/event-stream' } }));
    await renderRoute('/playground', { user: regularUser });
    fireEvent.click(await screen.findByRole('button', { name: /显示模型配置/ }));
    fireEvent.change(await screen.findByLabelText('系统提示词'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('输入消息'), { target: { value: 'Hi there' } });
    fireEvent.click(screen.getByRole('button', { name: /发\s*送/ }));
    await waitFor(() => expect(lastReply().dataset.status).toBe('loading'));
    gate.next();
    await waitFor(() => expect([lastReply().dataset.status, lastReply().textContent]).toEqual(['incomplete', 'Hel']));
    gate.next();
    await waitFor(() => expect(lastReply().textContent).toBe('Hello'));
    gate.next();
    await waitFor(() => expect(lastReply().dataset.status).toBe('complete'));
    const body = bodies[0] as { messages: { role: string; content: string }[]; model: string; stream: boolean; group: string };
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.stream).toBe(true);
    expect(body.group).toBe('default');
    expect(body.messages.map((message) => message.role)).toEqual(['user']);
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Hi there' });

    fireEvent.click(screen.getByRole('button', { name: /清除上下文/ }));
    expect(await screen.findByText('还没有消息。选择模型并发送消息即可试用，这里的调用会消耗您的额度。')).toBeTruthy();
  });

  it('an upstream error ends the message as an error that later events do not change', async () => {
    server(
      () =>
        new Response(
          `${delta('partial')}data: ${JSON.stringify({ error: { message: '上游出错了' } })}\n\n${delta('ignored')}data: [DONE]\n\n`,
          { headers: { 'Content-Type': 'text/event-stream' } },
        ),
    );
    await renderRoute('/playground', { user: regularUser });
    fireEvent.change(await screen.findByLabelText('输入消息'), { target: { value: 'Hi' } });
    fireEvent.click(screen.getByRole('button', { name: /发\s*送/ }));
    await waitFor(() => expect([lastReply().dataset.status, lastReply().textContent]).toEqual(['error', '上游出错了']));
  });
});
