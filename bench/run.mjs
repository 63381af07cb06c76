// Relay overhead benchmark: direct to the mock upstream, a bare undici proxy (floor), and ModelGate
// (server/dist/main.js, billing and consume logging on, SQLite temp file), non-stream and stream at
// concurrency 1, 16 and 64. Prints req/s, p50/p99, ratios, CPU per request; writes docs/performance.md.
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';

const root = path.resolve(import.meta.dirname, '..');
const duration = Number(process.env.BENCH_DURATION ?? 5);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number);
const cpus = os.availableParallelism();
// Pin the measured server alone on the last CPU; the load generator and the mock share the others.
const serverCpu = cpus > 1 ? String(cpus - 1) : null;
const clientCpus = cpus > 1 ? `0-${cpus - 2}` : null;
const hasTaskset = cpus > 1 && !process.env.BENCH_NO_PIN && fs.existsSync('/usr/bin/taskset');
if (hasTaskset) spawn('taskset', ['-pc', clientCpus, String(process.pid)], { stdio: 'ignore' });

function startNode(script, args, cpu, env = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    if (hasTaskset && cpu) spawn('taskset', ['-pc', cpu, String(child.pid)], { stdio: 'ignore' });
    child.once('message', (message) => resolve({ child, port: message.port }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function cpuTicks(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (1/100 s)
}

async function waitFor(url, init) {
  for (let i = 0; i < 200; i += 1) {
    try {
      const response = await fetch(url, init);
      if (response.status === 200) return;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

async function startModelGate(upstreamUrl) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-'));
  const sqlitePath = path.join(dir, 'bench.db');
  const port = 38000 + Math.floor(Math.random() * 1000);
  const env = { PORT: String(port), HOST: '127.0.0.1', SQLITE_PATH: sqlitePath, LOG_LEVEL: 'warn', SESSION_SECRET: 'bench', SYNC_FREQUENCY: '1', WEB_DIST_DIR: '/nonexistent' };
  const args = [path.join(root, 'server/dist/main.js')];
  const child = hasTaskset ? spawn('taskset', ['-c', serverCpu, process.execPath, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
    : spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor(`http://127.0.0.1:${port}/api/status`);
  const db = new Database(sqlitePath);
  const key = randomBytes(24).toString('hex');
  const now = Math.floor(Date.now() / 1000);
  const userId = db.prepare("INSERT INTO users (username, password, role, status, quota, \"group\", created_time) VALUES ('bench', 'x', 1, 1, 1000000000000, 'default', ?)").run(now).lastInsertRowid;
  db.prepare("INSERT INTO tokens (user_id, key, name, status, created_time, expired_time, remain_quota, unlimited_quota, \"group\") VALUES (?, ?, 'bench', 1, ?, -1, 0, 1, '')").run(userId, key, now);
  const channelId = db.prepare("INSERT INTO channels (type, key, name, status, base_url, models, \"group\", created_time) VALUES (1, 'upstream-key', 'bench', 1, ?, 'gpt-4o-mini', 'default', ?)").run(upstreamUrl, now).lastInsertRowid;
  db.prepare("INSERT INTO abilities (\"group\", model, channel_id, enabled, priority, weight, tag) VALUES ('default', 'gpt-4o-mini', ?, 1, 0, 0, '')").run(channelId);
  db.close();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) });
  return { child, url, key, sqlitePath, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const bodyOf = (isStream) => JSON.stringify({ model: 'gpt-4o-mini', stream: isStream, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }] });

async function load(url, headers, isStream, connections, pid) {
  const options = { url: `${url}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bodyOf(isStream), connections, pipelining: 1 };
  await autocannon({ ...options, duration: 1 }); // warm-up
  const before = pid ? cpuTicks(pid) : 0;
  const result = await autocannon({ ...options, duration });
  const ticks = pid ? cpuTicks(pid) - before : 0;
  const total = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuUsPerReq: pid && total ? (ticks * 10_000) / total : null,
  };
}

const mock = await startNode(path.join(import.meta.dirname, 'mock-upstream.mjs'), ['0'], clientCpus);
const upstreamUrl = `http://127.0.0.1:${mock.port}`;
const floor = await startNode(path.join(import.meta.dirname, 'floor-proxy.mjs'), [upstreamUrl, '0'], serverCpu);
const gate = await startModelGate(upstreamUrl);
const targets = [
  { name: 'direct', url: upstreamUrl, headers: {}, pid: null },
  { name: 'floor', url: `http://127.0.0.1:${floor.port}`, headers: {}, pid: floor.child.pid },
  { name: 'modelgate', url: gate.url, headers: { authorization: `Bearer sk-${gate.key}` }, pid: gate.child.pid },
];

const rows = [];
try {
  for (const isStream of [false, true]) {
    for (const connections of concurrencies) {
      const results = {};
      for (const target of targets) results[target.name] = await load(target.url, target.headers, isStream, connections, target.pid);
      const row = { mode: isStream ? 'stream' : 'non-stream', connections, ...results };
      rows.push(row);
      const mg = results.modelgate;
      console.log(`${row.mode.padEnd(10)} c=${String(connections).padEnd(3)} direct ${results.direct.rps.toFixed(0)} req/s | floor ${results.floor.rps.toFixed(0)} | modelgate ${mg.rps.toFixed(0)} (p50 ${mg.p50} ms, p99 ${mg.p99} ms, ${mg.cpuUsPerReq?.toFixed(0)} µs CPU/req) | MG/direct ${(mg.rps / results.direct.rps).toFixed(2)} MG/floor ${(mg.rps / results.floor.rps).toFixed(2)}`);
    }
  }
} finally {
  mock.child.kill();
  floor.child.kill();
  gate.child.kill('SIGTERM');
  await sleep(500);
}
const logCount = (() => {
  const db = new Database(gate.sqlitePath, { readonly: true });
  const count = db.prepare('SELECT COUNT(*) AS n FROM logs WHERE type = 2').get().n;
  db.close();
  return count;
})();
gate.cleanup();

const fmt = (value, digits = 0) => (value === null || value === undefined ? '–' : Number(value).toFixed(digits));
const lines = [
  '| mode | c | direct req/s | floor req/s | ModelGate req/s | MG/direct | MG/floor | direct p50 / p99 ms | floor p50 / p99 ms | MG p50 / p99 ms | floor CPU µs/req | MG CPU µs/req | MG errors |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((row) => `| ${row.mode} | ${row.connections} | ${fmt(row.direct.rps)} | ${fmt(row.floor.rps)} | ${fmt(row.modelgate.rps)} | ${fmt(row.modelgate.rps / row.direct.rps, 2)} | ${fmt(row.modelgate.rps / row.floor.rps, 2)} | ${row.direct.p50} / ${row.direct.p99} | ${row.floor.p50} / ${row.floor.p99} | ${row.modelgate.p50} / ${row.modelgate.p99} | ${fmt(row.floor.cpuUsPerReq)} | ${fmt(row.modelgate.cpuUsPerReq)} | ${row.modelgate.errors} |`),
];
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${cpus} CPUs, Node ${process.version}; ${duration} s per cell after a 1 s warm-up; ${hasTaskset ? `server pinned to CPU ${serverCpu}, load generator and mock on CPU ${clientCpus}` : 'no CPU pinning'}.`;
const table = `<!-- bench:start -->\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine} ModelGate wrote ${logCount} consume log rows during the run.\n\n${lines.join('\n')}\n<!-- bench:end -->`;
console.log(`\n${lines.join('\n')}`);
const docPath = path.join(root, 'docs/performance.md');
const doc = fs.existsSync(docPath) ? fs.readFileSync(docPath, 'utf8') : '';
if (doc.includes('<!-- bench:start -->')) fs.writeFileSync(docPath, doc.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, table));
else fs.writeFileSync(docPath, `${doc}\n${table}\n`);
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, 'results/latest.json'), JSON.stringify({ machine, rows, logCount }, null, 2));
