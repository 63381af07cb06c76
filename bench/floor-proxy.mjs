// The floor: a bare undici pass-through proxy (no auth, no billing, no parsing). Keep-alive pool to the
// upstream; a non-stream answer goes out in one write (head + body with content-length); a stream is
// piped chunk by chunk as it arrives.
import http from 'node:http';
import { Agent } from 'undici';

const [upstream, portArg] = process.argv.slice(2);
const origin = new URL(upstream).origin;
const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 300_000, connections: 512, pipelining: 1 });
const upstreamHeaders = { 'content-type': 'application/json' };

function fail(res, error) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(502, { 'content-type': 'text/plain' });
  res.end(String(error));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    dispatcher
      .request({
        origin,
        path: req.url,
        method: req.method,
        headers: upstreamHeaders,
        body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
      })
      .then(async (answer) => {
        const contentType = answer.headers['content-type'];
        if (String(contentType).startsWith('text/event-stream')) {
          res.writeHead(answer.statusCode, { 'content-type': contentType });
          for await (const piece of answer.body) res.write(piece);
          res.end();
          return;
        }
        const body = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, { 'content-type': contentType, 'content-length': body.length });
        res.end(body);
      })
      .catch((error) => fail(res, error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(portArg ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
