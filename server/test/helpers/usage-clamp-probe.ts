import { startChaosUpstream } from './chaos-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay } from './relay-fixtures.js';
import { startTestServer } from './test-server.js';

/**
 * Whether upstream usage is clamped to non-negative integers before it reaches the ledger (issue 11,
 * being built on wip/ledger): sends two requests whose upstream usage is 13.5 / −7 and 1e300 through a
 * SQLite gateway and reads the consume logs back. null when clamped (or refused: nothing odd was
 * billed), else what was stored. Tests whose expectations need the clamp skip with that reason.
 */
export async function probeUsageClamp(): Promise<string | null> {
  const upstream = await startChaosUpstream({
    fixedUsages: [{ prompt_tokens: 13.5, completion_tokens: -7, total_tokens: 6.5 }, { prompt_tokens: 1e300, completion_tokens: 1, total_tokens: 1e300 }],
  });
  const server = await startTestServer();
  try {
    const { ctx } = server;
    const userId = await createRelayUser(ctx, { quota: 1e15 });
    const token = await createRelayToken(ctx, userId);
    await createRelayChannel(ctx, { key: 'probe', baseURL: upstream.url, models: ['gpt-4o-mini'], autoBan: false });
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'probe' }] }),
      });
      await response.arrayBuffer();
    }
    await flushRelay(ctx);
    const logs = await ctx.storage.db.selectFrom('logs').select(['quota', 'prompt_tokens', 'completion_tokens']).where('type', '=', 2).execute();
    const bad = logs.filter((log) => [log.quota, log.prompt_tokens, log.completion_tokens].some((value) => !Number.isSafeInteger(Number(value)) || Number(value) < 0 || Number(value) > 2 ** 31 * 1e4));
    if (bad.length === 0) return null;
    return `upstream usage 13.5 / −7 / 1e300 was stored as ${bad.map((log) => `quota ${log.quota}, prompt_tokens ${log.prompt_tokens}, completion_tokens ${log.completion_tokens}`).join('; ')}`;
  } finally {
    await server.stop();
    await upstream.close();
  }
}
