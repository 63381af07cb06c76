// The ledger floor: the floor (floor-proxy.mjs) plus the least work any gateway that bills each call
// and keeps one log row per call must do, written as plainly as possible. It shows what part of the
// distance between ModelGate and the floor is the ledger itself, not how ModelGate does it.
// Per call: the key looked up in a Map, the request parsed and serialised again (with
// stream_options.include_usage for a stream), the upstream request, the usage read (non-stream: the
// answer parsed; stream: the event that holds "usage" parsed), the cost worked out, one log row queued;
// every second one transaction inserts the rows (multi-row statements of 100) into a SQLite `logs`
// table with ModelGate's schema and indexes, and updates the user's and the token's counters.
// Usage: node ledger-floor.mjs <upstream url> <port> <sqlite file holding ModelGate's schema> <key>
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Agent } from 'undici';

const [upstream, portArg, schemaFrom, key] = process.argv.slice(2);
const origin = new URL(upstream).origin;
const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 300_000, connections: 512, pipelining: 1 });
const upstreamHeaders = { 'content-type': 'application/json', authorization: 'Bearer upstream-key' };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-ledger-'));
const db = new Database(path.join(dir, 'ledger.db'));
db.pragma('page_size = 16384');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const schema = new Database(schemaFrom, { readonly: true });
for (const { sql } of schema
  .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name IN ('logs', 'users', 'tokens')")
  .all())
  db.exec(sql);
schema.close();
const userId = db
  .prepare(
    "INSERT INTO users (username, password, role, status, quota, \"group\", created_time) VALUES ('bench', 'x', 1, 1, 1000000000000, 'default', 0)",
  )
  .run().lastInsertRowid;
const tokenId = db
  .prepare(
    "INSERT INTO tokens (user_id, key, name, status, created_time, expired_time, remain_quota, unlimited_quota, \"group\") VALUES (?, ?, 'bench', 1, 0, -1, 0, 1, '')",
  )
  .run(userId, key).lastInsertRowid;
const callers = new Map([
  [`Bearer sk-${key}`, { userId: Number(userId), tokenId: Number(tokenId), username: 'bench', tokenName: 'bench', group: 'default' }],
]);

const columns = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'is_stream',
  'channel_id',
  'token_id',
  'group',
  'ip',
  'other',
];
const tuple = `(${columns.map(() => '?').join(', ')})`;
const inserts = new Map();
const insertFor = (count) => {
  let statement = inserts.get(count);
  if (!statement) {
    statement = db.prepare(
      `INSERT INTO logs (${columns.map((name) => `"${name}"`).join(', ')}) VALUES ${new Array(count).fill(tuple).join(', ')}`,
    );
    inserts.set(count, statement);
  }
  return statement;
};
const updateUser = db.prepare(
  'UPDATE users SET quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + ? WHERE id = ?',
);
const updateToken = db.prepare('UPDATE tokens SET used_quota = used_quota + ?, accessed_time = ? WHERE id = ?');
let pending = [];
const flush = db.transaction((rows) => {
  let quota = 0;
  for (let i = 0; i < rows.length; i += 100) {
    const batch = rows.slice(i, i + 100);
    insertFor(batch.length).run(batch.flat());
    for (const row of batch) quota += row[7];
  }
  updateUser.run(quota, quota, rows.length, userId);
  updateToken.run(quota, Math.floor(Date.now() / 1000), tokenId);
});
setInterval(() => {
  if (pending.length === 0) return;
  const rows = pending;
  pending = [];
  flush(rows);
}, 1000);

const modelRatio = 0.075;
const completionRatio = 4;
function record(caller, model, usage, isStream, startedAt, ip) {
  const quota = Math.ceil((usage.prompt_tokens + usage.completion_tokens * completionRatio) * modelRatio);
  const other = JSON.stringify({
    model_ratio: modelRatio,
    completion_ratio: completionRatio,
    group_ratio: 1,
    frt: Date.now() - startedAt,
    admin_info: { use_channel: ['1'] },
    group: caller.group,
    request_path: '/v1/chat/completions',
  });
  pending.push([
    caller.userId,
    Math.floor(Date.now() / 1000),
    2,
    `模型倍率 ${modelRatio}，补全倍率 ${completionRatio}，分组倍率 1`,
    caller.username,
    caller.tokenName,
    model,
    quota,
    usage.prompt_tokens,
    usage.completion_tokens,
    Math.round((Date.now() - startedAt) / 1000),
    isStream ? 1 : 0,
    1,
    caller.tokenId,
    caller.group,
    ip,
    other,
  ]);
}

function fail(res, status, message) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { message, type: 'bench_error' } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The usage object of one SSE piece that carries it, or null. */
function usageOfEvents(text) {
  const at = text.indexOf('"usage"');
  if (at < 0) return null;
  const start = text.lastIndexOf('data: ', at);
  const end = text.indexOf('\n', at);
  try {
    return JSON.parse(text.slice(start + 6, end < 0 ? undefined : end)).usage ?? null;
  } catch {
    return null;
  }
}

const server = http.createServer((req, res) => {
  const startedAt = Date.now();
  const caller = callers.get(req.headers.authorization ?? '');
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (!caller) return fail(res, 401, 'invalid key');
    let body;
    try {
      body = JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8'));
    } catch {
      return fail(res, 400, 'invalid JSON');
    }
    const isStream = body.stream === true;
    if (isStream) body.stream_options = { include_usage: true };
    dispatcher
      .request({ origin, path: req.url, method: 'POST', headers: upstreamHeaders, body: JSON.stringify(body) })
      .then(async (answer) => {
        const contentType = answer.headers['content-type'];
        if (isStream) {
          res.writeHead(answer.statusCode, { 'content-type': contentType });
          let usage = null;
          for await (const piece of answer.body) {
            usage = usageOfEvents(piece.toString('utf8')) ?? usage;
            res.write(piece);
          }
          res.end();
          record(caller, body.model, usage ?? { prompt_tokens: 0, completion_tokens: 0 }, true, startedAt, req.socket.remoteAddress ?? '');
          return;
        }
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        const usage = JSON.parse(bytes.toString('utf8')).usage ?? { prompt_tokens: 0, completion_tokens: 0 };
        record(caller, body.model, usage, false, startedAt, req.socket.remoteAddress ?? '');
        res.writeHead(answer.statusCode, { 'content-type': contentType, 'content-length': bytes.length });
        res.end(bytes);
      })
      .catch((error) => fail(res, 502, String(error)));
  });
});
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
server.listen(Number(portArg ?? 0), '127.0.0.1', () => process.send?.({ port: server.address().port }));
