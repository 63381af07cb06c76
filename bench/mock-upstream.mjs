// Minimal OpenAI-wire upstream for the benchmark: fixed JSON answer, or 10 SSE chunks + usage.
import http from 'node:http';

const port = Number(process.argv[2] ?? 0);
const created = Math.floor(Date.now() / 1000);
const answer = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the benchmark upstream.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
});
const chunk = (text) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const streamBody =
  Array.from({ length: 10 }, (_, i) => chunk(`tok${i} `)).join('') +
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 } })}\n\n` +
  'data: [DONE]\n\n';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const isStream = Buffer.concat(chunks).includes('"stream":true');
    if (isStream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(streamBody);
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.send?.({ port: server.address().port }));
