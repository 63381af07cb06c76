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
  const { fetchMock } = fakeServer({
    'GET /api/user/self/groups': () => ok({ default: { desc: '默认分组', ratio: 1 } }),
    'GET /api/user/models': () => ok(['gpt-4o-mini', 'gpt-4o']),
  });
  const original = fetchMock.getMockImplementation()!;
  fetchMock.mockImplementation(async (input: string, init?: RequestInit) => {
    if (input !== '/pg/chat/completions') return original(input, init);
    bodies.push(JSON.parse(String(init?.body)));
    return answer();
  });
  return bodies;
}

const lastReply = () => [...document.querySelectorAll('[data-role="assistant"]')].at(-1) as HTMLElement;

describe('playground', { timeout: 60_000 }, () => {
  it('streams: loading, then incomplete text piece by piece, then complete; no system message when empty', async () => {
    const gate = gatedStream([delta('Hel'), delta('lo'), 'data: [DONE]\n\n']);
    const bodies = server(() => new Response(gate.stream, { headers: { 'Content-Type': 'text/event-stream' } }));
    await renderRoute('/playground', { user: regularUser });
    expect(await screen.findByText('你好，请问有什么可以帮助您的吗？')).toBeTruthy();
    expect(screen.queryByLabelText('系统提示词')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /显示模型配置/ }));
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
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'Hi there' });

    fireEvent.click(screen.getByRole('button', { name: /清除上下文/ }));
    expect(await screen.findByText('开始一段新的对话吧')).toBeTruthy();
  });

  it('an upstream error ends the message as an error that later events do not change', async () => {
    server(() => new Response(`${delta('partial')}data: ${JSON.stringify({ error: { message: '上游出错了' } })}\n\n${delta('ignored')}data: [DONE]\n\n`, { headers: { 'Content-Type': 'text/event-stream' } }));
    await renderRoute('/playground', { user: regularUser });
    fireEvent.change(await screen.findByLabelText('输入消息'), { target: { value: 'Hi' } });
    fireEvent.click(screen.getByRole('button', { name: /发\s*送/ }));
    await waitFor(() => expect([lastReply().dataset.status, lastReply().textContent]).toEqual(['error', '上游出错了']));
  });
});
