import type { AppContext } from '../../context.js';
import type { NewLog } from '../../db/schema.js';
import { defaultCacheCreationRatioFallback } from '../../options/default-ratios.js';
import type { ModelPricing } from '../billing/pricing.js';
import { computeQuota, type Usage } from '../billing/quota.js';
import { clampQuota, clampUsage } from '../billing/usage-count.js';
import type { RelayState } from '../state.js';
import { releaseHold, type Hold } from './hold.js';
import { autoGroupFields, consumeLogRow } from './consume-log.js';
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
  /**
   * A call the response cache answered (relay/cache/): billed `quota`, the share `ratio` of the
   * original call's `originalQuota`, instead of its usage; its log row says so (`other.cache_hit`).
   */
  cacheHit?: CacheHitBill;
}

export interface CacheHitBill {
  quota: number;
  ratio: number;
  originalQuota: number;
}

/**
 * Turns usage into quota, records it for the write-behind flush and queues the consume log. A call a
 * subscription helped hold resolves once its split is written, so that an answer sent after it finds
 * the unused allowance given back (the caller's next call can use it); any other call is settled at once.
 */
export function settle(ctx: AppContext, relay: RelayState, input: SettleInput): number | Promise<number> {
  const { caller } = input.hold;
  // Every bill passes here: usage (untrusted upstream input, already read with usageCount by the
  // adapters) and the quota are clamped once more so no reader can put a value into the ledger
  // that the columns cannot hold (same object when clean: no allocation).
  input.usage = clampUsage(input.usage);
  const quota = clampQuota(
    input.cacheHit
      ? input.cacheHit.quota
      : computeQuota(input.pricing, input.groupRatio, input.usage, ctx.options.number('QuotaPerUnit'), input.calls),
  );
  const log = ctx.options.bool('LogConsumeEnabled')
    ? new ConsumeLogRecord(input, quota, Date.now(), caller.user.username, caller.token?.name ?? '')
    : null;
  // A call a subscription helped hold: the split between the sources is settled in the database first.
  if (input.hold.funding !== null) return settleFunded(ctx, relay, input.hold, input.channelId, quota, log).then(() => quota);
  releaseHold(input.hold);
  relay.usage.record(caller.user, caller.token, input.channelId, quota, log);
  return quota;
}

/** Request paths as one shared string each (a call's path is a fresh slice of its URL), bounded. */
const requestPaths = new Map<string, string>();
function sharedPath(path: string): string {
  const known = requestPaths.get(path);
  if (known !== undefined) return known;
  if (requestPaths.size >= 256) requestPaths.clear();
  requestPaths.set(path, path);
  return path;
}

/**
 * A consume log row as settle() saw it, turned into the row (content text and `other` JSON) only
 * when the write-behind flush writes it. It lives until that flush (up to BATCH_UPDATE_INTERVAL_MS),
 * so it keeps only what the row needs, as its own fields: not the settle input, the hold or the
 * caller (which would keep the request's objects alive), and the channels tried as a number when
 * there was one. Everything that may change later (the time, names of the user and token) is
 * captured here; the pricing and usage objects are not changed after settle.
 */
export class ConsumeLogRecord {
  /** Which sources paid, for a call of a user with subscription funding (funding-settle.ts); null: the wallet alone. */
  funding: FundingLogFields | null = null;
  private readonly userId: number;
  private readonly tokenId: number;
  private readonly group: string;
  private readonly isAutoToken: boolean;
  private readonly pricing: ModelPricing;
  private readonly groupRatio: number;
  private readonly userGroupRatio: number;
  private readonly usage: Usage;
  private readonly model: string;
  private readonly upstreamModel: string;
  private readonly channelId: number;
  private readonly tried: number | number[];
  private readonly isStream: boolean;
  private readonly startedAt: number;
  private readonly frtMs: number;
  private readonly requestPath: string;
  private readonly cacheHit: CacheHitBill | null;

  constructor(
    input: SettleInput,
    private readonly quota: number,
    private readonly now: number,
    private readonly username: string,
    private readonly tokenName: string,
  ) {
    const { caller } = input.hold;
    this.userId = caller.user.id;
    this.tokenId = caller.token?.id ?? 0;
    this.group = input.group ?? caller.group;
    this.isAutoToken = caller.autoGroups !== null;
    this.pricing = input.pricing;
    this.groupRatio = input.groupRatio;
    this.userGroupRatio = input.userGroupRatio ?? -1;
    this.usage = input.usage;
    this.model = input.model;
    this.upstreamModel = input.upstreamModel;
    this.channelId = input.channelId;
    this.tried = input.tried.length === 1 ? input.tried[0]! : input.tried.slice();
    this.isStream = input.isStream;
    this.startedAt = input.startedAt;
    this.frtMs = input.frtMs;
    this.requestPath = sharedPath(input.requestPath);
    this.cacheHit = input.cacheHit ?? null;
  }

  toRow(): NewLog {
    const { pricing, usage, groupRatio } = this;
    const audio = usage.audioInputTokens;
    const audioRatio = pricing.audioRatio ?? 1;
    const image = usage.imageInputTokens;
    const imageRatio = pricing.imageRatio ?? 1;
    const content =
      pricing.quotaType === 1
        ? `模型价格 ${pricing.modelPrice}，分组倍率 ${groupRatio}`
        : image !== undefined
          ? `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，图片输入倍率 ${imageRatio}，分组倍率 ${groupRatio}`
          : audio !== undefined
            ? `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，音频倍率 ${audioRatio}，分组倍率 ${groupRatio}`
            : `模型倍率 ${pricing.modelRatio}，补全倍率 ${pricing.completionRatio}，分组倍率 ${groupRatio}`;
    const other = {
      model_ratio: pricing.modelRatio,
      model_price: pricing.modelPrice,
      completion_ratio: pricing.completionRatio,
      group_ratio: groupRatio,
      user_group_ratio: this.userGroupRatio,
      cache_tokens: usage.cachedTokens,
      cache_ratio: pricing.cacheRatio,
      ...(usage.cacheCreationTokens !== undefined
        ? {
            cache_creation_tokens: usage.cacheCreationTokens,
            cache_creation_ratio: pricing.cacheCreationRatio ?? defaultCacheCreationRatioFallback,
            claude: true,
          }
        : {}),
      ...(audio !== undefined ? { audio: true, audio_input: audio, audio_ratio: audioRatio } : {}),
      ...(image !== undefined ? { image: true, image_input: image, image_ratio: imageRatio } : {}),
      frt: this.frtMs,
      is_model_mapped: this.upstreamModel !== this.model,
      upstream_model_name: this.upstreamModel,
      admin_info: { use_channel: typeof this.tried === 'number' ? [String(this.tried)] : this.tried.map(String) },
      group: this.group,
      ...(this.isAutoToken ? autoGroupFields(this.group) : {}),
      request_path: this.requestPath,
      ...(this.cacheHit
        ? { cache_hit: true, cache_hit_ratio: this.cacheHit.ratio, cache_original_quota: this.cacheHit.originalQuota }
        : {}),
      ...this.funding,
    };
    const caller = {
      user: { id: this.userId, username: this.username },
      token: this.tokenId > 0 ? { id: this.tokenId, name: this.tokenName } : null,
      group: this.group,
    };
    return consumeLogRow({
      caller,
      model: this.model,
      quota: this.quota,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      channelId: this.channelId,
      isStream: this.isStream,
      startedAt: this.startedAt,
      now: this.now,
      content,
      other,
    });
  }
}
