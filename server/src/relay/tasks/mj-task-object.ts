import type { Selectable } from 'kysely';
import { request } from 'undici';
import type { AppContext } from '../../context.js';
import type { RelayState } from '../state.js';
import type { MidjourneysTable } from '../../db/schema.js';
import { shownImageUrl } from '../../lib/mj-image-url.js';
import { callbackDispatcher, fetchGuardOf, outboundUrlProblem } from '../../lib/outbound-guard.js';

export type MjRow = Selectable<MidjourneysTable>;

const parsed = (text: string, fallback: unknown): unknown => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
};

/**
 * A drawing as Midjourney-Proxy clients read it (fetch, list-by-condition, the notify hook): the
 * gateway's id, times in milliseconds, and — with MjForwardUrlEnabled and a ServerAddress — the
 * image URL pointing at the gateway's `/mj/image/{id}` proxy instead of the upstream's.
 */
export function mjTaskObject(ctx: AppContext, row: MjRow): Record<string, unknown> {
  return {
    id: row.mj_id,
    action: row.action,
    prompt: row.prompt,
    promptEn: row.prompt_en,
    description: row.description,
    state: row.state,
    submitTime: Number(row.submit_time) * 1000,
    startTime: Number(row.start_time) * 1000,
    finishTime: Number(row.finish_time) * 1000,
    imageUrl: shownImageUrl(ctx.options, row.mj_id, row.image_url),
    videoUrl: row.video_url,
    status: row.status,
    progress: row.progress,
    failReason: row.fail_reason,
    buttons: parsed(row.buttons, []),
    properties: parsed(row.properties, {}),
  };
}

const hookTimeoutMs = 10_000;

/**
 * MjNotifyEnabled: the caller's `notifyHook` is POSTed the task object when its status or progress
 * changed. One attempt within a short timeout (its answer too); a failing hook is logged, never retried
 * or billed. The hook is the caller's URL: under the SSRF guard (lib/outbound-guard.ts) it reaches
 * public addresses only.
 */
export function notifyMjHook(ctx: AppContext, relay: Pick<RelayState, 'log'>, mjId: string): void {
  if (!ctx.options.bool('MjNotifyEnabled')) return;
  void (async () => {
    const row = await ctx.storage.db.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).executeTakeFirst();
    if (!row?.notify_hook) return;
    const guard = fetchGuardOf(ctx.options);
    const problem = outboundUrlProblem(row.notify_hook, guard);
    if (problem) {
      relay.log.warn({ mjId, reason: problem }, 'midjourney notify hook refused by the SSRF protection');
      return;
    }
    const response = await request(row.notify_hook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(mjTaskObject(ctx, row)),
      dispatcher: callbackDispatcher(ctx.config.extraCaFile, guard),
      headersTimeout: hookTimeoutMs,
      bodyTimeout: hookTimeoutMs,
      // The whole exchange, answer included: a hook that answers a byte at a time is not kept open for days.
      signal: AbortSignal.timeout(hookTimeoutMs),
    });
    await response.body.dump();
  })().catch((error: unknown) => relay.log.warn({ mjId, err: (error as Error).message }, 'midjourney notify hook failed'));
}
