import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { selfSignedCertificate, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

interface HookCall {
  authorization: string;
  body: Record<string, unknown>;
}

/** An https webhook receiver with a self-signed certificate; answers `statuses` in turn, then 200. */
async function startHookServer(cert: { key: string; cert: string }, statuses: number[] = []) {
  const calls: HookCall[] = [];
  const server = https.createServer({ key: cert.key, cert: cert.cert }, (request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls.push({ authorization: String(request.headers.authorization ?? ''), body: JSON.parse(body) as Record<string, unknown> });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const chat = (server: TestServer, apiKey: string) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 16 }),
  });

describe.each(storageKinds())('quota warnings on %s', (kind) => {
  const tls = selfSignedCertificate();
  let mock: MockOpenAi;
  let sink: SmtpSink;
  let server: TestServer;
  beforeAll(async () => {
    mock = await startMockOpenAi();
    sink = await startSmtpSink();
    server = await startTestServer({ kind, env: { EXTRA_CA_FILE: tls.certFile, BATCH_UPDATE_INTERVAL_MS: '100' } });
    // The hooks below listen on 127.0.0.1 at a random port: the SSRF protection must allow both.
    for (const [key, value] of [
      ['SMTPServer', '127.0.0.1'],
      ['SMTPPort', String(sink.port)],
      ['SMTPFrom', 'gate@example.com'],
      ['QuotaRemindThreshold', '1000'],
      ['fetch_setting.allow_private_ip', 'true'],
      ['fetch_setting.allowed_ports', '["1-65535"]'],
    ]) {
      await setOption(server.ctx, key!, value!);
    }
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
  });
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
    await mock?.close();
  });

  it('mails a user whose balance fell below their threshold once, after the flush, not again within 2 hours', async () => {
    const userId = await createRelayUser(server.ctx, {
      quota: 50_000,
      setting: JSON.stringify({ notify_type: 'email', quota_warning_threshold: 50_000 }),
    });
    await server.ctx.storage.db.updateTable('users').set({ email: 'low@example.com' }).where('id', '=', userId).execute();
    const token = await createRelayToken(server.ctx, userId);
    expect((await chat(server, token.apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    const mail = await sink.nextMail('low@example.com');
    expect(mail.subject).toBe('您的额度即将用尽');
    expect(mail.html).toContain('当前剩余额度为');
    // No ServerAddress: no top-up link (a mail link is never built from anything else).
    expect(mail.html).not.toContain('href');
    // More spending inside the 2-hour window: no second mail.
    expect((await chat(server, token.apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.mails.filter((m) => m.to.includes('low@example.com'))).toEqual([]);
  });

  it('leaves a user above their threshold alone, and uses QuotaRemindThreshold when they set none', async () => {
    const rich = await createRelayUser(server.ctx, { quota: 100_000_000, setting: JSON.stringify({ notify_type: 'email' }) });
    await server.ctx.storage.db.updateTable('users').set({ email: 'rich@example.com' }).where('id', '=', rich).execute();
    const poor = await createRelayUser(server.ctx, { quota: 900 });
    await server.ctx.storage.db.updateTable('users').set({ email: 'poor@example.com' }).where('id', '=', poor).execute();
    const richToken = await createRelayToken(server.ctx, rich);
    const poorToken = await createRelayToken(server.ctx, poor);
    await setOption(server.ctx, 'ServerAddress', 'https://gate.example.com/');
    expect((await chat(server, richToken.apiKey)).status).toBe(200);
    expect((await chat(server, poorToken.apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    expect((await sink.nextMail('poor@example.com')).html).toContain('<a href="https://gate.example.com/topup">');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.mails.filter((m) => m.to.includes('rich@example.com'))).toEqual([]);
  });

  it('calls an https webhook with the secret as a bearer token, retrying a failing hook', async () => {
    const hook = await startHookServer(tls, [503]);
    try {
      const userId = await createRelayUser(server.ctx, {
        quota: 50_000,
        setting: JSON.stringify({
          notify_type: 'webhook',
          quota_warning_threshold: 50_000,
          webhook_url: hook.url,
          webhook_secret: 'hook-secret',
        }),
      });
      const token = await createRelayToken(server.ctx, userId);
      expect((await chat(server, token.apiKey)).status).toBe(200);
      await flushRelay(server.ctx);
      await until(() => hook.calls.length >= 2, 'the retried webhook call');
      for (const call of hook.calls) {
        expect(call.authorization).toBe('Bearer hook-secret');
        expect(call.body).toMatchObject({ type: 'quota_exceed', title: '您的额度即将用尽', user_id: userId });
      }
      expect(Number(hook.calls[0]!.body.remaining_quota)).toBeLessThan(50_000);
    } finally {
      await hook.close();
    }
  });

  /** A user with a webhook at `url` whose call just took their balance below the threshold (the warning is on its way). */
  const warnedUser = async (url: string) => {
    const userId = await createRelayUser(server.ctx, {
      quota: 50_000,
      setting: JSON.stringify({ notify_type: 'webhook', quota_warning_threshold: 50_000, webhook_url: url, webhook_secret: 'hook-secret' }),
    });
    expect((await chat(server, (await createRelayToken(server.ctx, userId)).apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    return userId;
  };
  /** Whether the warning of this user was handled (sent, or refused and logged). */
  const claimed = async (userId: number) => (await server.ctx.cache.count(`notify:quota:${userId}`)) > 0;

  it('never calls a webhook on a private address while the SSRF protection refuses them, by address or by name', async () => {
    const hook = await startHookServer(tls);
    try {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
      // A literal loopback address, and a name that resolves to it (checked when the connection is made).
      const byAddress = await warnedUser(hook.url);
      const byName = await warnedUser(hook.url.replace('127.0.0.1', 'localhost'));
      await expect.poll(async () => (await claimed(byAddress)) && (await claimed(byName))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.calls).toEqual([]);
      // The far side: with private addresses allowed the same hook, by name, is called.
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
      const allowed = await warnedUser(hook.url.replace('127.0.0.1', 'localhost'));
      await until(() => hook.calls.length === 1, 'the allowed webhook call');
      expect(hook.calls[0]!.body).toMatchObject({ type: 'quota_exceed', user_id: allowed });
    } finally {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
      await hook.close();
    }
  });

  it("holds webhook calls to the root's domain and address lists, the address list on what a name resolves to", async () => {
    const hook = await startHookServer(tls);
    const byName = hook.url.replace('127.0.0.1', 'localhost');
    try {
      // Saved before the lists were set; refused when it is called. Each warning is over before the
      // lists change: the lists are read when the warning is sent, just after it is claimed.
      await setOption(server.ctx, 'fetch_setting.domain_filter_mode', 'true');
      await setOption(server.ctx, 'fetch_setting.domain_list', '["*.example.com"]');
      const notListed = await warnedUser(byName);
      await expect.poll(() => claimed(notListed)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.calls).toEqual([]);
      await setOption(server.ctx, 'fetch_setting.domain_filter_mode', 'false');
      await setOption(server.ctx, 'fetch_setting.domain_list', '[]');
      await setOption(server.ctx, 'fetch_setting.ip_list', '["127.0.0.0/8", "::1"]');
      const blockedAddress = await warnedUser(byName);
      await expect.poll(() => claimed(blockedAddress)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(hook.calls).toEqual([]);
      // The far side: with the address list applied only to written addresses, the name is called.
      await setOption(server.ctx, 'fetch_setting.apply_ip_filter_for_domain', 'false');
      const allowed = await warnedUser(byName);
      await until(() => hook.calls.length === 1, 'the allowed webhook call');
      expect(hook.calls[0]!.body).toMatchObject({ type: 'quota_exceed', user_id: allowed });
    } finally {
      await setOption(server.ctx, 'fetch_setting.domain_filter_mode', 'false');
      await setOption(server.ctx, 'fetch_setting.domain_list', '[]');
      await setOption(server.ctx, 'fetch_setting.ip_list', '[]');
      await setOption(server.ctx, 'fetch_setting.apply_ip_filter_for_domain', 'true');
      await hook.close();
    }
  });

  it('never calls a plain-http webhook, and a failing mail server does not disturb the relay', async () => {
    const userId = await createRelayUser(server.ctx, {
      quota: 50_000,
      setting: JSON.stringify({
        notify_type: 'webhook',
        quota_warning_threshold: 50_000,
        webhook_url: `${mock.url}/hook`,
        webhook_secret: 's',
      }),
    });
    const token = await createRelayToken(server.ctx, userId);
    const before = mock.requests.length;
    expect((await chat(server, token.apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mock.requests.slice(before).some((r) => r.path.endsWith('/hook'))).toBe(false);

    await setOption(server.ctx, 'SMTPPort', '9');
    const mailUser = await createRelayUser(server.ctx, { quota: 50_000, setting: JSON.stringify({ quota_warning_threshold: 50_000 }) });
    await server.ctx.storage.db.updateTable('users').set({ email: 'nomail@example.com' }).where('id', '=', mailUser).execute();
    const mailToken = await createRelayToken(server.ctx, mailUser);
    expect((await chat(server, mailToken.apiKey)).status).toBe(200);
    await flushRelay(server.ctx);
    expect((await chat(server, mailToken.apiKey)).status).toBe(200);
    await setOption(server.ctx, 'SMTPPort', String(sink.port));
  });
});
