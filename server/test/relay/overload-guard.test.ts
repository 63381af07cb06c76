import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { openClient } from '../helpers/realtime-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The overload guard (lib/overload-guard.ts) against a real app in this process: a timer here holds
 * the event loop (the app's loop) busy, and the relay must answer 503 with Retry-After in each
 * caller's error shape while the management API, the console and health checks are still served;
 * once the load is gone it takes calls again.
 */
describe('the relay refuses calls while this process is overloaded', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let apiKey: string;
  const lines: string[] = [];
  let busy: NodeJS.Timeout | null = null;

  /** Holds the event loop `ms` out of every `every` ms. */
  const holdEventLoop = (ms: number, every: number) => {
    busy = setInterval(() => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        /* busy */
      }
    }, every);
  };
  const release = () => {
    if (busy) clearInterval(busy);
    busy = null;
  };

  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...init.headers },
    });
  const chat = () =>
    call('/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await server.ctx.options.set(key, value);
  };
  async function waitForStatus(status: number, what: string): Promise<Response> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = await call('/v1/models');
      if (response.status === status) return response;
      await response.arrayBuffer();
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer({ env: { LOG_LEVEL: 'info' }, loggerStream: { write: (line: string) => void lines.push(line) } });
    const userId = await createRelayUser(server.ctx);
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
    await createRelayChannel(server.ctx, {
      key: 'healthy',
      baseURL: mock.url,
      models: ['gpt-4o-mini', 'gemini-2.0-flash', 'claude-3-5-haiku-20241022'],
    });
  });
  afterEach(async () => {
    release();
    await setOptions({ 'performance_setting.monitor_enabled': 'false' });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('is off by default: a busy event loop slows calls down but none is refused', async () => {
    expect(server.ctx.options.bool('performance_setting.monitor_enabled')).toBe(false);
    holdEventLoop(250, 300);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await chat()).status).toBe(200);
    expect(server.ctx.overload.lastSample).toBeNull();
  });

  it('event-loop lag: 503 with Retry-After in the OpenAI, Anthropic and Gemini shapes; /api, the console and /healthz stay served; then recovers', async () => {
    await setOptions({
      'performance_setting.monitor_enabled': 'true',
      'performance_setting.monitor_event_loop_lag_ms': '100',
      'performance_setting.monitor_cpu_threshold': '0',
      'performance_setting.monitor_memory_threshold': '0',
    });
    expect((await chat()).status).toBe(200);
    holdEventLoop(250, 300);
    const models = await waitForStatus(503, 'the guard to refuse');
    expect(models.headers.get('retry-after')).toBe('5');
    expect(await models.json()).toEqual({
      error: {
        message: 'The server event loop is overloaded. Please try again later',
        type: 'server_error',
        param: null,
        code: 'system_event_loop_overloaded',
      },
    });

    // The OpenAI JSON routes are served by the direct lane.
    const openai = await chat();
    expect([openai.status, openai.headers.get('retry-after'), openai.headers.get('retry-after-ms')]).toEqual([503, '5', '5000']);
    expect((await openai.json()).error).toMatchObject({ type: 'server_error', code: 'system_event_loop_overloaded' });
    const chinese = await call('/v1/chat/completions', {
      method: 'POST',
      headers: { 'accept-language': 'zh-CN' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [] }),
    });
    expect((await chinese.json()).error.message).toBe('服务器事件循环延迟过高，请稍后再试');

    const anthropic = await call('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({ model: 'claude-3-5-haiku-20241022', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect([anthropic.status, anthropic.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'The server event loop is overloaded. Please try again later' },
    });

    const gemini = await fetch(`${server.url}/v1beta/models/gemini-2.0-flash:generateContent?key=${apiKey.slice(3)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect([gemini.status, gemini.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await gemini.json()).toEqual({
      error: { code: 503, message: 'The server event loop is overloaded. Please try again later', status: 'UNAVAILABLE' },
    });

    // A new Realtime session is a new call: its upgrade is refused the same way.
    const session = await openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    }).rejected;
    expect([session.status, session.headers['retry-after']]).toEqual([503, '5']);
    expect(JSON.parse(session.body).error).toMatchObject({ type: 'server_error', code: 'system_event_loop_overloaded' });

    // Not the relay: still served.
    expect((await fetch(`${server.url}/api/status`)).status).toBe(200);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    release();
    await waitForStatus(200, 'the guard to take calls again');
    expect((await chat()).status).toBe(200);
    expect(lines.filter((line) => line.includes('overloaded: the relay refuses new calls')).length).toBeGreaterThanOrEqual(1);
    const refused = JSON.parse(lines.find((line) => line.includes('overloaded: the relay refuses new calls'))!);
    expect(refused).toMatchObject({ level: 40, resource: 'event_loop', thresholds: { eventLoopLagMs: 100 } });
    expect(refused.eventLoopLagMs).toBeGreaterThan(100);
    expect(lines.some((line) => line.includes('no longer overloaded'))).toBe(true);
  });

  it('CPU: a process busy most of the time is refused with system_cpu_overloaded, then recovers', async () => {
    // Busy 29 ms of every 30: about 97% of a core on an idle machine; a loaded shared one (the test
    // machine has two cores) gives this process much less CPU time, hence the low threshold (idle: ~4%).
    await setOptions({
      'performance_setting.monitor_enabled': 'true',
      'performance_setting.monitor_event_loop_lag_ms': '0',
      'performance_setting.monitor_cpu_threshold': '15',
      'performance_setting.monitor_memory_threshold': '0',
    });
    holdEventLoop(29, 30);
    const refused = await waitForStatus(503, 'the CPU guard to refuse');
    expect((await refused.json()).error.code).toBe('system_cpu_overloaded');
    expect(server.ctx.overload.lastSample!.cpuPercent).toBeGreaterThan(15);
    release();
    await waitForStatus(200, 'the guard to take calls again');
  });

  it('memory: over the threshold is refused with system_memory_overloaded; a threshold of 0 turns the check off', async () => {
    await setOptions({
      'performance_setting.monitor_enabled': 'true',
      'performance_setting.monitor_event_loop_lag_ms': '0',
      'performance_setting.monitor_cpu_threshold': '0',
      'performance_setting.monitor_memory_threshold': '0',
    });
    const deadline = Date.now() + 10_000;
    while (!server.ctx.overload.lastSample && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const used = server.ctx.overload.lastSample!.memoryPercent;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(100);
    await setOptions({ 'performance_setting.monitor_memory_threshold': String(Math.round(used * 50) / 100) });
    const refused = await waitForStatus(503, 'the memory guard to refuse');
    expect((await refused.json()).error.code).toBe('system_memory_overloaded');
    await setOptions({ 'performance_setting.monitor_memory_threshold': '0' });
    await waitForStatus(200, 'the guard to take calls again');
  });
});
