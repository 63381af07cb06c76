// The floor: a bare undici pass-through proxy (no auth, no billing), keep-alive to the upstream.
import http from 'node:http';
import { Agent, request } from 'undici';

const [upstream, portArg] = process.argv.slice(2);
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 512 });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const answer = await request(upstream + req.url, { method: req.method, headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks), dispatcher });
      res.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] });
      for await (const piece of answer.body) res.write(piece);
      res.end();
    } catch (error) {
      res.writeHead(502);
      res.end(String(error));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(portArg ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
