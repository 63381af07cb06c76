import { relayOf } from '../helpers/test-server.js';
import type OpenAI from 'openai';
import type { AppContext } from '../../src/context.js';
import { createRelayToken, createRelayUser, flushRelay } from '../helpers/relay-fixtures.js';

/** A user with a token for SDK tests; returns the client key. */
export async function createSdkCaller(ctx: AppContext, quota = 100_000_000): Promise<{ userId: number; tokenId: number; apiKey: string }> {
  const userId = await createRelayUser(ctx, { quota });
  const token = await createRelayToken(ctx, userId, { remainQuota: 50_000_000 });
  return { userId, tokenId: token.id, apiKey: token.apiKey };
}

/** The quota formula of docs/billing.md, recomputed from a consume log row and its `other`. */
export function quotaOfLog(log: { prompt_tokens: number; completion_tokens: number }, other: any): number {
  const cached = other.cache_tokens ?? 0;
  const creation = other.cache_creation_tokens ?? 0;
  const audio = other.audio_input ?? 0;
  const image = other.image_input ?? 0;
  const weighted =
    log.prompt_tokens -
    cached -
    creation -
    audio -
    image +
    cached * other.cache_ratio +
    creation * (other.cache_creation_ratio ?? 1.25) +
    audio * (other.audio_ratio ?? 1) +
    image * (other.image_ratio ?? 1) +
    log.completion_tokens * other.completion_ratio;
  if (weighted <= 0 || other.model_ratio === 0) return 0;
  return Math.max(1, Math.round(other.group_ratio * other.model_ratio * weighted));
}

/** After the write-behind flush: the caller's log rows on the channel (newest first), and the user/token/channel counters. */
export async function billedState(ctx: AppContext, ids: { userId: number; tokenId: number; channelId: number }) {
  await flushRelay(ctx);
  const db = ctx.storage.db;
  const logs = await db
    .selectFrom('logs')
    .selectAll()
    .where('type', '=', 2)
    .where('user_id', '=', ids.userId)
    .where('channel_id', '=', ids.channelId)
    .orderBy('id', 'desc')
    .execute();
  const user = await db.selectFrom('users').select(['used_quota', 'quota']).where('id', '=', ids.userId).executeTakeFirstOrThrow();
  const token = await db.selectFrom('tokens').select(['used_quota']).where('id', '=', ids.tokenId).executeTakeFirstOrThrow();
  const channel = await db.selectFrom('channels').select(['used_quota']).where('id', '=', ids.channelId).executeTakeFirstOrThrow();
  return {
    logs: logs.map((log) => ({ ...log, quota: Number(log.quota), other: JSON.parse(log.other) as any })),
    userUsed: Number(user.used_quota),
    tokenUsed: Number(token.used_quota),
    channelUsed: Number(channel.used_quota),
  };
}

/** Sets a channel's `other` (api-version, region, app type, …) and rebuilds the channel index. */
export async function setChannelOther(ctx: AppContext, channelId: number, other: string): Promise<void> {
  await ctx.storage.db.updateTable('channels').set({ other }).where('id', '=', channelId).execute();
  await ctx.bus.publish('channels');
  await relayOf(ctx).channels.rebuild();
}

/** The text and the usage (when sent) of a streamed chat completion, as the openai client yields it. */
export async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage };
}
