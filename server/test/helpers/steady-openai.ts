import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-wire upstream that answers every route with one fixed, well-formed answer (stream or not),
 * whatever the request asks for, so that a test of hostile requests sees the gateway's own handling
 * of them and never an upstream's reaction.
 */
export interface SteadyOpenAi {
  url: string;
  close(): Promise<void>;
}

const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
const chunk = (delta: unknown, finish: string | null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const chatStream =
  chunk({ role: 'assistant', content: 'he' }, null) +
  chunk({ content: 'llo' }, 'stop') +
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage })}\n\ndata: [DONE]\n\n`;
const response = {
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  status: 'completed',
  model: 'm',
  output: [
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'hello', annotations: [] }],
    },
  ],
  usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 },
};

function answer(path: string, isStream: boolean): { type: string; body: string } {
  const json = (value: unknown) => ({ type: 'application/json', body: JSON.stringify(value) });
  if (path.endsWith('/embeddings'))
    return json({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
      model: 'm',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  if (path.endsWith('/images/generations')) return json({ created: 1, data: [{ url: 'https://images.example/1.png' }] });
  if (path.endsWith('/moderations'))
    return json({ id: 'modr', model: 'm', results: [{ flagged: false, categories: {}, category_scores: {} }] });
  if (path.endsWith('/rerank')) return json({ results: [{ index: 0, relevance_score: 0.9 }], usage: { total_tokens: 5 } });
  if (path.endsWith('/audio/speech')) return { type: 'audio/mpeg', body: 'ID3steady' };
  if (path.endsWith('/responses')) {
    if (isStream)
      return {
        type: 'text/event-stream',
        body: `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response })}\n\n`,
      };
    return json(response);
  }
  if (isStream) return { type: 'text/event-stream', body: chatStream };
  if (path.endsWith('/completions') && !path.endsWith('/chat/completions')) {
    return json({
      id: 'c',
      object: 'text_completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, text: 'hello', finish_reason: 'stop' }],
      usage,
    });
  }
  return json({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
    usage,
  });
}

export async function startSteadyOpenAi(): Promise<SteadyOpenAi> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (part: Buffer) => chunks.push(part));
    req.on('end', () => {
      const { type, body } = answer(req.url ?? '', /"stream"\s*:\s*true/.test(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
