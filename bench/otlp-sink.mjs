// A local OTLP/HTTP collector for the "modelgate+otel" target: accepts POST /v1/traces, reads the
// body, answers 200 and keeps nothing, so the bench measures what tracing costs ModelGate (span
// building, batching, JSON export) and not a real collector. Counts spans received, told on exit.
import http from 'node:http';

let exports = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  req.on('data', (chunk) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    exports += 1;
    res.writeHead(req.method === 'POST' && req.url === '/v1/traces' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => {
  if (process.env.BENCH_OTLP_SINK_REPORT) console.error(`otlp sink: ${exports} exports, ${bytes} bytes`);
  process.exit(0);
});
