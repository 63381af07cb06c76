import type { AppContext } from '../../context.js';
import type { NewLog } from '../../db/schema.js';
import { clampQuota, usageCount } from '../billing/usage-count.js';
import { releaseHold, type Hold } from '../ledger/hold.js';
import { autoGroupLogFields, consumeLogRow } from '../ledger/consume-log.js';
import { settleFunded, type FundingLogFields } from '../ledger/funding-settle.js';
import type { GrowingFunding } from '../ledger/funding-grow.js';
import type { RelayState } from '../state.js';
import { computeRealtimeQuota, type RealtimePricing } from './realtime-pricing.js';
import { cachedTokensOf, inputTokensOf, outputTokensOf, type RealtimeUsage } from './usage.js';

export interface RealtimeSettleInput {
  hold: Hold;
  pricing: RealtimePricing;
  /** The group whose channel served the session (the caller's, or a later auto group). */
  group: string;
  groupRatio: number;
  /** GroupGroupRatio's special ratio for the caller, or -1. */
  userGroupRatio?: number;
  usage: RealtimeUsage;
  model: string;
  upstreamModel: string;
  channelId: number;
  tried: number[];
  startedAt: number;
  /** ms from the start to the first upstream frame. */
  frtMs: number;
}

/**
 * Bills a finished session like settle() bills an HTTP request: the hold is released, the quota is
 * recorded for the write-behind flush (user, token, channel) and one consume log row is queued. A
 * session of a user with subscription funding is split between the allowances and the wallet once its
 * last growth is written (`growing`, ledger/funding-grow.ts), as a chat call (funding-settle.ts).
 */
export function settleRealtimeSession(
  ctx: AppContext,
  relay: RelayState,
  growing: GrowingFunding | null,
  input: RealtimeSettleInput,
): number {
  const { caller } = input.hold;
  const quota = clampQuota(computeRealtimeQuota(input.pricing, input.groupRatio, input.usage, ctx.options.number('QuotaPerUnit')));
  const log = ctx.options.bool('LogConsumeEnabled')
    ? new RealtimeLogRecord(input, quota, Date.now(), caller.user.username, caller.token?.name ?? '')
    : null;
  if (input.hold.funding !== null) {
    ctx.lifecycle.callStarted();
    void (growing?.settled() ?? Promise.resolve())
      .then(() => settleFunded(ctx, relay, input.hold, input.channelId, quota, log))
      // Nobody awaits this bill: a failed split is logged, not lost as an unhandled rejection.
      .catch((error: unknown) =>
        relay.log.error({ err: error, channelId: input.channelId, userId: caller.user.id }, 'settling a realtime session failed'),
      )
      .finally(() => ctx.lifecycle.callEnded());
    return quota;
  }
  releaseHold(input.hold);
  relay.usage.record(caller.user, caller.token, input.channelId, quota, log);
  return quota;
}

/** A session's consume log row, built when the flush writes it; `funding` says who paid (funding-settle.ts). */
class RealtimeLogRecord {
  funding: FundingLogFields | null = null;

  constructor(
    private readonly input: RealtimeSettleInput,
    private readonly quota: number,
    private readonly now: number,
    private readonly username: string,
    private readonly tokenName: string,
  ) {}

  toRow(): NewLog {
    return buildRealtimeLog(this.input, this.quota, this.now, this.username, this.tokenName, this.funding);
  }
}

function buildRealtimeLog(
  input: RealtimeSettleInput,
  quota: number,
  now: number,
  username: string,
  tokenName: string,
  funding: FundingLogFields | null,
): NewLog {
  const { caller } = input.hold;
  const { pricing, usage } = input;
  const content =
    pricing.quotaType === 1
      ? `模型价格 ${pricing.modelPrice}，分组倍率 ${input.groupRatio}`
      : `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，音频倍率 ${pricing.audioRatio}，音频补全倍率 ${pricing.audioCompletionRatio}，分组倍率 ${input.groupRatio}`;
  const other = {
    model_ratio: pricing.modelRatio,
    model_price: pricing.modelPrice,
    completion_ratio: pricing.completionRatio,
    group_ratio: input.groupRatio,
    user_group_ratio: input.userGroupRatio ?? -1,
    cache_tokens: cachedTokensOf(usage),
    cache_ratio: pricing.cacheRatio,
    frt: input.frtMs,
    is_model_mapped: input.upstreamModel !== input.model,
    upstream_model_name: input.upstreamModel,
    admin_info: { use_channel: input.tried.map(String) },
    group: input.group,
    ...autoGroupLogFields(caller, input.group),
    request_path: '/v1/realtime',
    ws: true,
    audio: usage.audioInputTokens + usage.audioOutputTokens > 0,
    text_input: usage.textInputTokens,
    text_output: usage.textOutputTokens,
    audio_input: usage.audioInputTokens,
    audio_output: usage.audioOutputTokens,
    cache_text_tokens: usage.cachedTextTokens,
    cache_audio_tokens: usage.cachedAudioTokens,
    audio_ratio: pricing.audioRatio,
    audio_completion_ratio: pricing.audioCompletionRatio,
    responses: usage.responses,
    ...funding,
  };
  return consumeLogRow({
    caller,
    group: input.group,
    model: input.model,
    quota,
    promptTokens: usageCount(inputTokensOf(usage)),
    completionTokens: usageCount(outputTokensOf(usage)),
    channelId: input.channelId,
    isStream: true,
    startedAt: input.startedAt,
    now,
    content,
    other,
    username,
    tokenName,
  });
}
