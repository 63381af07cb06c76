import type { AppContext } from '../../context.js';
import type { NewLog } from '../../db/schema.js';
import { defaultCacheCreationRatioFallback } from '../../options/default-ratios.js';
import type { ModelPricing } from '../billing/pricing.js';
import { computeQuota, type Usage } from '../billing/quota.js';
import { clampQuota, clampUsage } from '../billing/usage-count.js';
import type { RelayState } from '../state.js';
import { releaseHold, type Hold } from './hold.js';
import { autoGroupLogFields, consumeLogRow } from './consume-log.js';
import { settleFunded, type FundingLogFields } from './funding-settle.js';

export interface SettleInput {
  hold: Hold;
  pricing: ModelPricing;
  /** The ratio billed (a user group's special ratio when one applies: billing/pricing.ts findGroupRatioInfo). */
  groupRatio: number;
  /** GroupGroupRatio's special ratio, or -1 (the log's user_group_ratio). */
  userGroupRatio?: number;
  /** The group that served the call (after a cross-group retry, not the first); default the caller's. */
  group?: string;
  usage: Usage;
  calls: number;
  model: string;
  upstreamModel: string;
  channelId: number;
  tried: number[];
  isStream: boolean;
  startedAt: number;
  frtMs: number;
  ip: string;
  requestPath: string;
}

/** Turns usage into quota, records it for the write-behind flush and queues the consume log. */
export function settle(ctx: AppContext, relay: RelayState, input: SettleInput): number {
  const { caller } = input.hold;
  // Every bill passes here: usage (untrusted upstream input, already read with usageCount by the
  // adapters) and the quota are clamped once more so no reader can put a value into the ledger
  // that the columns cannot hold (same object when clean: no allocation).
  input.usage = clampUsage(input.usage);
  const quota = clampQuota(computeQuota(input.pricing, input.groupRatio, input.usage, ctx.options.number('QuotaPerUnit'), input.calls));
  const log = ctx.options.bool('LogConsumeEnabled')
    ? new ConsumeLogRecord(input, quota, Date.now(), caller.user.username, caller.token?.name ?? '')
    : null;
  // A call a subscription helped hold: the split between the sources is settled in the database first.
  if (input.hold.funding !== null) {
    settleFunded(ctx, relay, input.hold, input.channelId, quota, log);
    return quota;
  }
  releaseHold(input.hold);
  relay.usage.record(caller.user, caller.token, input.channelId, quota, log);
  return quota;
}

/**
 * A consume log row as settle() saw it, turned into the row (content text and `other` JSON) only
 * when the write-behind flush writes it: the request path keeps one small object. Everything that
 * may change later (the time, names of the user and token) is captured here; the rest of the input
 * (pricing, usage, tried channels) is not changed after settle.
 */
export class ConsumeLogRecord {
  /** Which sources paid, for a call of a user with subscription funding (funding-settle.ts); null: the wallet alone. */
  funding: FundingLogFields | null = null;

  constructor(
    private readonly input: SettleInput,
    private readonly quota: number,
    private readonly now: number,
    private readonly username: string,
    private readonly tokenName: string,
  ) {}

  toRow(): NewLog {
    return buildConsumeLog(this.input, this.quota, this.now, this.username, this.tokenName, this.funding);
  }
}

function buildConsumeLog(input: SettleInput, quota: number, now: number, username: string, tokenName: string, funding: FundingLogFields | null): NewLog {
  const { caller } = input.hold;
  const { pricing } = input;
  const audio = input.usage.audioInputTokens;
  const audioRatio = pricing.audioRatio ?? 1;
  const image = input.usage.imageInputTokens;
  const imageRatio = pricing.imageRatio ?? 1;
  const content = pricing.quotaType === 1
    ? `模型价格 ${pricing.modelPrice}，分组倍率 ${input.groupRatio}`
    : image !== undefined
      ? `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，图片输入倍率 ${imageRatio}，分组倍率 ${input.groupRatio}`
      : audio !== undefined
      ? `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，音频倍率 ${audioRatio}，分组倍率 ${input.groupRatio}`
      : `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，分组倍率 ${input.groupRatio}`;
  const other = {
    model_ratio: pricing.modelRatio,
    model_price: pricing.modelPrice,
    completion_ratio: pricing.completionRatio,
    group_ratio: input.groupRatio,
    user_group_ratio: input.userGroupRatio ?? -1,
    cache_tokens: input.usage.cachedTokens,
    cache_ratio: pricing.cacheRatio,
    ...(input.usage.cacheCreationTokens !== undefined
      ? { cache_creation_tokens: input.usage.cacheCreationTokens, cache_creation_ratio: pricing.cacheCreationRatio ?? defaultCacheCreationRatioFallback, claude: true }
      : {}),
    ...(audio !== undefined ? { audio: true, audio_input: audio, audio_ratio: audioRatio } : {}),
    ...(image !== undefined ? { image: true, image_input: image, image_ratio: imageRatio } : {}),
    frt: input.frtMs,
    is_model_mapped: input.upstreamModel !== input.model,
    upstream_model_name: input.upstreamModel,
    admin_info: { use_channel: input.tried.map(String) },
    group: input.group ?? caller.group,
    ...autoGroupLogFields(caller, input.group ?? caller.group),
    request_path: input.requestPath,
    ...funding,
  };
  return consumeLogRow({
    caller, model: input.model, quota, promptTokens: input.usage.promptTokens, completionTokens: input.usage.completionTokens,
    channelId: input.channelId, isStream: input.isStream, startedAt: input.startedAt, now, content, other, username, tokenName, group: input.group,
  });
}
