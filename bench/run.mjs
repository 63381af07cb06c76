// Relay overhead benchmark: direct to the mock upstream, a bare undici proxy (floor), and ModelGate
// (server/dist/main.js, billing and consume logging on, SQLite temp file), non-stream and stream at
// concurrency 1, 16 and 64, beside a "ledger floor" (ledger-floor.mjs) and "modelgate+otel" (tracing on, otlp-sink.mjs). Prints req/s, p50/p99, ratios, CPU per request; writes docs/performance.md.
// autocannon reports whole milliseconds, so c=1 latency is also measured precisely: a sequential client
// loop (one keep-alive connection, process.hrtime.bigint around each full response) giving p50/p99 in µs.
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { Client } from 'undici';

const root = path.resolve(import.meta.dirname, '..');
const duration = Number(process.env.BENCH_DURATION ?? 5);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number);
const latencyRequests = Number(process.env.BENCH_LATENCY_REQUESTS ?? 3000);
const cpus = os.availableParallelism();
// Pin the measured server alone on the last CPU; the load generator and the mock share the others.
const serverCpu = cpus > 1 ? String(cpus - 1) : null;
const clientCpus = cpus > 1 ? `0-${cpus - 2}` : null;
const hasTaskset = cpus > 1 && !process.env.BENCH_NO_PIN && fs.existsSync('/usr/bin/taskset');
const pin = (pid, cpu) => spawnSync('taskset', ['-a', '-pc', cpu, String(pid)], { stdio: 'ignore' });
if (hasTaskset) pin(process.pid, clientCpus);

function startNode(script, args, cpu, env = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    if (hasTaskset && cpu) pin(child.pid, cpu);
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
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

const defaultMain = path.join(root, 'server/dist/main.js');

async function startModelGate(upstreamUrl, mainPath = defaultMain, extraEnv = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-'));
  const sqlitePath = path.join(dir, 'bench.db');
  // Below the ephemeral range (32768+), so a restart never meets a port a client socket holds.
  const port = 20000 + Math.floor(Math.random() * 10000);
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    SQLITE_PATH: sqlitePath,
    LOG_LEVEL: 'warn',
    SESSION_SECRET: 'bench',
    SYNC_FREQUENCY: '1',
    WEB_DIST_DIR: '/nonexistent',
    ...extraEnv,
  };
  // BENCH_NODE_ARGS (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof') profiles the measured ModelGate.
  const args = [...(process.env.BENCH_NODE_ARGS && mainPath === defaultMain ? process.env.BENCH_NODE_ARGS.split(' ') : []), mainPath];
  const child = hasTaskset
    ? spawn('taskset', ['-c', serverCpu, process.execPath, ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      })
    : spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor(`http://127.0.0.1:${port}/api/status`);
  const db = new Database(sqlitePath);
  const key = randomBytes(24).toString('hex');
  const now = Math.floor(Date.now() / 1000);
  const userId = db
    .prepare(
      "INSERT INTO users (username, password, role, status, quota, \"group\", created_time) VALUES ('bench', 'x', 1, 1, 1000000000000, 'default', ?)",
    )
    .run(now).lastInsertRowid;
  db.prepare(
    "INSERT INTO tokens (user_id, key, name, status, created_time, expired_time, remain_quota, unlimited_quota, \"group\") VALUES (?, ?, 'bench', 1, ?, -1, 0, 1, '')",
  ).run(userId, key, now);
  const channelId = db
    .prepare(
      "INSERT INTO channels (type, key, name, status, base_url, models, \"group\", created_time) VALUES (1, 'upstream-key', 'bench', 1, ?, 'gpt-4o-mini', 'default', ?)",
    )
    .run(upstreamUrl, now).lastInsertRowid;
  db.prepare(
    "INSERT INTO abilities (\"group\", model, channel_id, enabled, priority, weight, tag) VALUES ('default', 'gpt-4o-mini', ?, 1, 0, 0, '')",
  ).run(channelId);
  // BENCH_LIMITS_AND_METRICS=1: the measured build runs with metrics on and a token and channel
  // concurrency limit (never reached), so their cost shows against a baseline without them.
  const withLimits = Boolean(process.env.BENCH_LIMITS_AND_METRICS) && mainPath === defaultMain;
  if (withLimits) {
    db.prepare("INSERT INTO options (key, value) VALUES ('MetricsEnabled', 'true'), ('MetricsToken', 'bench-metrics')").run();
    db.prepare('UPDATE tokens SET max_concurrency = 100000').run();
    db.prepare('UPDATE channels SET setting = ?').run(JSON.stringify({ max_concurrency: 100000 }));
  }
  db.close();
  if (withLimits) await sleep(2500); // SYNC_FREQUENCY 1: options, tokens and channels reloaded
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { child, url, key, sqlitePath, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const bodyOf = (isStream) =>
  JSON.stringify({ model: 'gpt-4o-mini', stream: isStream, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }] });

// Targets are measured interleaved: each cell runs `rounds` slices per target in turn (in turned-around
// order every other round), so noise from other processes on the machine falls on every target alike. req/s = requests / time over all slices;
// p50 / p99 = the median of the slices' values.
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function cellOptions(target, isStream, connections, seconds) {
  return {
    url: `${target.url}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: bodyOf(isStream),
    connections,
    pipelining: 1,
    duration: seconds,
  };
}

async function loadCell(isStream, connections) {
  const acc = Object.fromEntries(
    targets.map((target) => [target.name, { requests: 0, seconds: 0, p50: [], p99: [], errors: 0, ticks: 0 }]),
  );
  for (let round = 0; round < rounds; round += 1) {
    if (restartEachRound) await restartServers(isStream, connections);
    else if (round === 0) for (const target of targets) await autocannon(cellOptions(target, isStream, connections, 1)); // warm-up
    // The order turns around every round: a ModelGate's write-behind flush of the slice it just served
    // runs on the pinned server CPU while the next target is measured, so a fixed order would always
    // charge it to the same neighbour.
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      const a = acc[target.name];
      const before = target.pid ? cpuTicks(target.pid) : 0;
      const result = await autocannon(cellOptions(target, isStream, connections, duration / rounds));
      a.ticks += target.pid ? cpuTicks(target.pid) - before : 0;
      a.requests += result.requests.total;
      a.seconds += result.duration;
      a.p50.push(result.latency.p50);
      a.p99.push(result.latency.p99);
      a.errors += result.errors + result.non2xx;
    }
  }
  return Object.fromEntries(
    targets.map((target) => {
      const a = acc[target.name];
      return [
        target.name,
        {
          rps: a.requests / a.seconds,
          p50: median(a.p50),
          p99: median(a.p99),
          errors: a.errors,
          cpuUsPerReq: target.pid && a.requests ? (a.ticks * 10_000) / a.requests : null,
        },
      ];
    }),
  );
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/**
 * c=1 latency in µs: a sequential loop per target over one keep-alive connection (undici Client),
 * process.hrtime.bigint() around each request to its last byte; targets interleaved in rounds.
 */
async function sequentialLatency(isStream) {
  const clients = new Map(targets.map((target) => [target.name, new Client(target.url, { pipelining: 1, keepAliveTimeout: 60_000 })]));
  const once = async (target) => {
    const start = process.hrtime.bigint();
    const response = await clients.get(target.name).request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: bodyOf(isStream),
    });
    await response.body.arrayBuffer();
    if (response.statusCode !== 200) throw new Error(`${target.name} answered ${response.statusCode}`);
    return Number(process.hrtime.bigint() - start) / 1000;
  };
  const samples = Object.fromEntries(targets.map((target) => [target.name, []]));
  const ticks = Object.fromEntries(targets.map((target) => [target.name, 0]));
  try {
    for (const target of targets) for (let i = 0; i < 300; i += 1) await once(target); // warm-up
    const perRound = Math.ceil(latencyRequests / rounds);
    for (let round = 0; round < rounds; round += 1) {
      for (const target of targets) {
        const before = target.pid ? cpuTicks(target.pid) : 0;
        for (let i = 0; i < perRound; i += 1) samples[target.name].push(await once(target));
        ticks[target.name] += target.pid ? cpuTicks(target.pid) - before : 0;
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
  }
  return Object.fromEntries(
    targets.map((target) => {
      const sorted = samples[target.name].sort((a, b) => a - b);
      return [
        target.name,
        {
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          cpuUsPerReq: target.pid ? (ticks[target.name] * 10_000) / sorted.length : null,
        },
      ];
    }),
  );
}

/** Busy CPU ticks of the whole machine (all CPUs), to tell how much other processes took. */
function machineBusyTicks() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return fields.reduce((sum, value) => sum + value, 0) - fields[3] - fields[4]; // minus idle and iowait
}

const mock = await startNode(path.join(import.meta.dirname, 'mock-upstream.mjs'), ['0'], clientCpus);
const upstreamUrl = `http://127.0.0.1:${mock.port}`;
// The "modelgate+otel" target (BENCH_OTEL=0 leaves it out): the same build with OpenTelemetry tracing
// on, every call sampled and exported to this sink, so the run shows tracing off (modelgate) vs on.
const hasOtel = process.env.BENCH_OTEL !== '0';
const otlpSink = hasOtel ? await startNode(path.join(import.meta.dirname, 'otlp-sink.mjs'), ['0'], clientCpus) : null;
const baselineMain = process.env.BENCH_BASELINE_MAIN;

/** Stops a child process and waits until it has exited. */
function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  return exited;
}

// CPU ticks of server processes already stopped (restarted), for the noise report; consume rows they wrote.
let retiredTicks = 0;
let logCount = 0;
function countLogs(sqlitePath) {
  const db = new Database(sqlitePath, { readonly: true });
  const count = db.prepare('SELECT COUNT(*) AS n FROM logs WHERE type = 2').get().n;
  db.close();
  return count;
}

/**
 * A server target runs in a fresh process for every round (BENCH_RESTART=0: one process for the whole
 * run). How V8 compiles a process's hot functions differs from one start to the next, and one process
 * of the same build measured 12% apart from another; a fresh process per round averages that out.
 */
const restartEachRound = process.env.BENCH_RESTART !== '0';
// A fresh process's hot functions need a few seconds of load before V8 has optimised them.
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
// ModelGate's own schema for the ledger floor's `logs`, `users` and `tokens`, copied from the first ModelGate started.
let schemaPath = null;
async function startServer(target) {
  if (target.kind === 'ledger') {
    const key = randomBytes(24).toString('hex');
    const ledger = await startNode(path.join(import.meta.dirname, 'ledger-floor.mjs'), [upstreamUrl, '0', schemaPath, key], serverCpu);
    return {
      url: `http://127.0.0.1:${ledger.port}`,
      headers: { authorization: `Bearer sk-${key}` },
      child: ledger.child,
      stop: () => stopChild(ledger.child),
    };
  }
  if (target.kind === 'floor') {
    const floor = await startNode(path.join(import.meta.dirname, 'floor-proxy.mjs'), [upstreamUrl, '0'], serverCpu);
    return { url: `http://127.0.0.1:${floor.port}`, headers: {}, child: floor.child, stop: () => stopChild(floor.child) };
  }
  const gate = await startModelGate(upstreamUrl, target.main, target.env);
  if (!schemaPath) {
    schemaPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-schema-')), 'schema.db');
    const db = new Database(gate.sqlitePath);
    db.prepare('VACUUM INTO ?').run(schemaPath);
    db.close();
  }
  return {
    url: gate.url,
    headers: { authorization: `Bearer sk-${gate.key}` },
    child: gate.child,
    stop: async () => {
      await stopChild(gate.child);
      if (target.name === 'modelgate') logCount += countLogs(gate.sqlitePath);
      gate.cleanup();
    },
  };
}
async function startTarget(target) {
  const server = await startServer(target);
  Object.assign(target, { url: server.url, headers: server.headers, pid: server.child.pid, stop: server.stop });
}
async function stopTarget(target) {
  try {
    retiredTicks += cpuTicks(target.pid);
  } catch {
    /* already gone */
  }
  await target.stop();
}
/** Fresh processes for every server target, each warmed up before the round measures it. */
async function restartServers(isStream, connections) {
  for (const target of targets) {
    if (!target.kind) continue;
    await stopTarget(target);
    await startTarget(target);
    await autocannon(cellOptions(target, isStream, connections, warmupSeconds));
  }
}

// BENCH_BASELINE_MAIN=<path to another build's dist/main.js> adds it as another target, measured
// interleaved with the others (before/after comparisons under the same conditions).
const targets = [
  { name: 'direct', url: upstreamUrl, headers: {}, pid: null },
  { name: 'floor', kind: 'floor' },
  // BENCH_LEDGER_FLOOR=0 leaves out the ledger floor (ledger-floor.mjs).
  ...(process.env.BENCH_LEDGER_FLOOR === '0' ? [] : [{ name: 'ledger', kind: 'ledger', label: 'ledger floor' }]),
  ...(baselineMain ? [{ name: 'baseline', kind: 'modelgate', main: baselineMain, label: 'baseline' }] : []),
  ...(otlpSink
    ? [
        {
          name: 'modelgate+otel',
          kind: 'modelgate',
          main: defaultMain,
          label: 'modelgate+otel',
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpSink.port}`, OTEL_TRACES_SAMPLER: 'always_on' },
        },
      ]
    : []),
  { name: 'modelgate', kind: 'modelgate', main: defaultMain },
];
// ModelGate first: the ledger floor takes its schema.
for (const target of [...targets].sort((a, b) => Number(b.kind === 'modelgate') - Number(a.kind === 'modelgate')))
  if (target.kind) await startTarget(target);
const baseline = baselineMain ? targets.find((target) => target.name === 'baseline') : null;
// The targets reported beside the floor and ModelGate: the ledger floor, the baseline.
const extras = targets.filter((target) => target.label);
const serverPids = () => targets.filter((target) => target.kind).map((target) => target.pid);
const ownPids = () => [process.pid, mock.child.pid, ...(otlpSink ? [otlpSink.child.pid] : []), ...serverPids()];

const rows = [];
const latencyRows = [];
const startedAt = Date.now();
const busyBefore = machineBusyTicks();
const ownBefore = ownPids().reduce((sum, pid) => sum + cpuTicks(pid), 0);
let busyTicks = 0;
let ownTicks = 0;
try {
  for (const isStream of [false, true]) {
    const mode = isStream ? 'stream' : 'non-stream';
    // One request in flight at a time: every process but one is idle, and on this VM waking an idle
    // vCPU costs hundreds of µs per hop (the floor's 4 hops made its c=1 look "broken"). For the
    // precise latency everything shares the server CPU, so the figure is processing time, not wake-ups.
    if (hasTaskset) for (const pid of ownPids()) pin(pid, serverCpu);
    const latency = await sequentialLatency(isStream);
    if (hasTaskset) {
      for (const pid of [process.pid, mock.child.pid, ...(otlpSink ? [otlpSink.child.pid] : [])]) pin(pid, clientCpus);
      for (const pid of serverPids()) pin(pid, serverCpu);
    }
    latencyRows.push({ mode, ...latency });
    console.log(
      `${mode.padEnd(10)} sequential p50: direct ${latency.direct.p50.toFixed(0)} µs | floor ${latency.floor.p50.toFixed(0)} µs | modelgate ${latency.modelgate.p50.toFixed(0)} µs (added ${(latency.modelgate.p50 - latency.floor.p50).toFixed(0)} µs)${extras.map((t) => ` | ${t.label} ${latency[t.name].p50.toFixed(0)} µs`).join('')}`,
    );
    for (const connections of concurrencies) {
      const results = await loadCell(isStream, connections);
      const row = { mode, connections, ...results };
      rows.push(row);
      const mg = results.modelgate;
      console.log(
        `${mode.padEnd(10)} c=${String(connections).padEnd(3)} direct ${results.direct.rps.toFixed(0)} req/s | floor ${results.floor.rps.toFixed(0)} | modelgate ${mg.rps.toFixed(0)} (p50 ${mg.p50} ms, p99 ${mg.p99} ms, ${mg.cpuUsPerReq?.toFixed(0)} µs CPU/req) | MG/floor ${(mg.rps / results.floor.rps).toFixed(2)}${extras.map((t) => ` | ${t.label} ${results[t.name].rps.toFixed(0)} (${results[t.name].cpuUsPerReq?.toFixed(0)} µs CPU/req) ${t.label}/floor ${(results[t.name].rps / results.floor.rps).toFixed(2)}`).join('')}`,
      );
    }
  }
} finally {
  busyTicks = machineBusyTicks() - busyBefore;
  ownTicks =
    ownPids().reduce((sum, pid) => {
      try {
        return sum + cpuTicks(pid);
      } catch {
        return sum;
      }
    }, 0) +
    retiredTicks -
    ownBefore;
  for (const target of targets) if (target.kind) await target.stop();
  mock.child.kill();
  otlpSink?.child.kill();
  if (schemaPath) fs.rmSync(path.dirname(schemaPath), { recursive: true, force: true });
}
const elapsedSeconds = (Date.now() - startedAt) / 1000;
// Share of the machine's CPU time used by processes other than the benchmark's own.
const otherLoad = Math.max(0, (busyTicks - ownTicks) / 100 / (elapsedSeconds * cpus));
const fmt = (value, digits = 0) => (value === null || value === undefined ? '–' : Number(value).toFixed(digits));
const lines = [
  `| mode | c | direct req/s | floor req/s |${extras.map((t) => ` ${t.label} req/s |`).join('')} ModelGate req/s |${extras.map((t) => ` ${t.label}/floor |`).join('')} MG/floor | floor p50 / p99 ms | MG p50 / p99 ms | floor CPU µs/req |${extras.map((t) => ` ${t.label} CPU µs/req |`).join('')} MG CPU µs/req | MG errors |`,
  `|---|---|---|---|${extras.map(() => '---|').join('')}---|${extras.map(() => '---|').join('')}---|---|---|---|${extras.map(() => '---|').join('')}---|---|`,
  ...rows.map(
    (row) =>
      `| ${row.mode} | ${row.connections} | ${fmt(row.direct.rps)} | ${fmt(row.floor.rps)} |${extras.map((t) => ` ${fmt(row[t.name].rps)} |`).join('')} ${fmt(row.modelgate.rps)} |${extras.map((t) => ` ${fmt(row[t.name].rps / row.floor.rps, 2)} |`).join('')} ${fmt(row.modelgate.rps / row.floor.rps, 2)} | ${row.floor.p50} / ${row.floor.p99} | ${row.modelgate.p50} / ${row.modelgate.p99} | ${fmt(row.floor.cpuUsPerReq)} |${extras.map((t) => ` ${fmt(row[t.name].cpuUsPerReq)} |`).join('')} ${fmt(row.modelgate.cpuUsPerReq)} | ${row.modelgate.errors} |`,
  ),
];
const latencyLines = [
  `| mode | direct p50 / p99 µs | floor p50 / p99 µs |${extras.map((t) => ` ${t.label} p50 / p99 µs |`).join('')} ModelGate p50 / p99 µs |${extras.map((t) => ` ${t.label} added p50 µs |`).join('')} MG added p50 µs | floor CPU µs/req |${extras.map((t) => ` ${t.label} CPU µs/req |`).join('')} MG CPU µs/req |`,
  `|---|---|---|${extras.map(() => '---|').join('')}---|${extras.map(() => '---|').join('')}---|---|${extras.map(() => '---|').join('')}---|`,
  ...latencyRows.map(
    (row) =>
      `| ${row.mode} | ${fmt(row.direct.p50)} / ${fmt(row.direct.p99)} | ${fmt(row.floor.p50)} / ${fmt(row.floor.p99)} |${extras.map((t) => ` ${fmt(row[t.name].p50)} / ${fmt(row[t.name].p99)} |`).join('')} ${fmt(row.modelgate.p50)} / ${fmt(row.modelgate.p99)} |${extras.map((t) => ` ${fmt(row[t.name].p50 - row.floor.p50)} |`).join('')} ${fmt(row.modelgate.p50 - row.floor.p50)} | ${fmt(row.floor.cpuUsPerReq)} |${extras.map((t) => ` ${fmt(row[t.name].cpuUsPerReq)} |`).join('')} ${fmt(row.modelgate.cpuUsPerReq)} |`,
  ),
];
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${cpus} CPUs, Node ${process.version}; ${duration} s per cell and target in ${rounds} interleaved slices, ${restartEachRound ? `every server target in a fresh process each round, warmed up ${warmupSeconds} s` : 'one process per target, after a 1 s warm-up'}; ${hasTaskset ? `servers pinned to CPU ${serverCpu}, load generator and mock on CPU ${clientCpus}` : 'no CPU pinning'}`;
const noise = `Other processes used ${(otherLoad * 100).toFixed(0)}% of the machine's CPU time during the run.`;
const table = `<!-- bench:start -->\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine}. ${noise} ModelGate wrote ${logCount} consume log rows.${baseline ? ` "baseline" is ${process.env.BENCH_BASELINE_LABEL ?? process.env.BENCH_BASELINE_MAIN}, measured in the same run.` : ''}${extras.some((t) => t.name === 'ledger') ? ' "ledger floor" is the floor plus the least work of a gateway that bills every call and keeps a log row of it (bench/ledger-floor.mjs).' : ''}${otlpSink ? ' "modelgate+otel" is the same build with OpenTelemetry tracing on (every call sampled, a request and an attempt span exported over OTLP/HTTP JSON to a local sink, bench/otlp-sink.mjs); "modelgate" runs with tracing off.' : ''}\n\nThroughput (autocannon):\n\n${lines.join('\n')}\n\nConcurrency 1, precise (sequential loop, ${latencyRequests} requests per target after 300 warm-up, one keep-alive connection, hrtime to the last byte):\n\n${latencyLines.join('\n')}\n<!-- bench:end -->`;
console.log(`\n${noise} ModelGate wrote ${logCount} consume log rows.\n${lines.join('\n')}\n\n${latencyLines.join('\n')}`);
const docPath = path.join(root, 'docs/performance.md');
const doc = fs.existsSync(docPath) ? fs.readFileSync(docPath, 'utf8') : '';
if (process.env.BENCH_NO_DOC) console.log('BENCH_NO_DOC set: docs/performance.md left alone');
else if (doc.includes('<!-- bench:start -->'))
  fs.writeFileSync(docPath, doc.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, table));
else fs.writeFileSync(docPath, `${doc}\n${table}\n`);
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(import.meta.dirname, 'results/latest.json'),
  JSON.stringify({ machine, otherLoad, rows, latencyRows, logCount }, null, 2),
);
