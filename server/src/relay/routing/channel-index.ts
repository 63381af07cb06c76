import type { Storage } from '../../db/index.js';
import type { ChannelRow } from '../../db/schema.js';
import { adapterForType } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/types.js';
import { keyFingerprint } from './key-health.js';

/** A channel as the relay uses it: parsed once per rebuild, never re-read per request. */
export interface RelayChannel {
  id: number;
  type: number;
  name: string;
  keys: string[];
  baseURL: string;
  other: string;
  organization: string;
  adapter: ProviderAdapter | null;
  modelMapping: Record<string, string> | null;
  statusCodeMapping: Record<string, string> | null;
  paramOverride: Record<string, unknown> | null;
  isAutoBan: boolean;
  /** 1 enabled; set to 3 in memory the moment this instance auto-disables it. */
  status: number;
  models: string[];
  groups: string[];
  /** Concurrency and rate limits from the channel's `setting` (null: none, the free case). */
  limits: ChannelLimits | null;
  /** How a multi-key channel picks a key: at random, or each in turn. */
  keyMode: 'random' | 'polling';
}

/** `setting` fields: max_concurrency, rpm_limit, key_max_concurrency (0 or absent: no limit). */
export interface ChannelLimits {
  maxConcurrency: number;
  rpm: number;
  keyMaxConcurrency: number;
}

const limitOf = (value: unknown): number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, 1_000_000) : 0;

function limitsOf(setting: Record<string, unknown> | null): ChannelLimits | null {
  if (!setting) return null;
  const limits = {
    maxConcurrency: limitOf(setting.max_concurrency),
    rpm: limitOf(setting.rpm_limit),
    keyMaxConcurrency: limitOf(setting.key_max_concurrency),
  };
  return limits.maxConcurrency || limits.rpm || limits.keyMaxConcurrency ? limits : null;
}

/** Keys an auto-ban took out alone (other_info.disabled_keys: fingerprint → reason and time). */
function disabledKeysOf(otherInfo: Record<string, unknown> | null): Set<string> {
  const disabled = otherInfo?.disabled_keys;
  return new Set(disabled && typeof disabled === 'object' && !Array.isArray(disabled) ? Object.keys(disabled) : []);
}

interface Candidate {
  channel: RelayChannel;
  weight: number;
}

/** group → model → candidates grouped by priority, highest first. */
type Index = Map<string, Map<string, Candidate[][]>>;

const hasServableChannel = (priorities: Candidate[][] | undefined): boolean =>
  priorities?.some((list) => list.some(({ channel }) => channel.adapter !== null)) ?? false;

function parseObject<T>(text: string): T | null {
  if (!text || !text.trim() || text.trim() === '{}') return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
  } catch {
    return null;
  }
}

const splitList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The channel's keys, one per line, but those disabled alone (all of them when every one is: the channel is then off anyway). */
function usableKeys(row: ChannelRow): string[] {
  // A JSON key (a Vertex service account) is one key over several lines.
  if (row.key.trim().startsWith('{')) return [row.key.trim()];
  const keys = row.key
    .split('\n')
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys.length <= 1) return keys;
  const disabled = disabledKeysOf(parseObject<Record<string, unknown>>(row.other_info));
  if (disabled.size === 0) return keys;
  const usable = keys.filter((key) => !disabled.has(keyFingerprint(key)));
  return usable.length > 0 ? usable : keys;
}

export function toRelayChannel(row: ChannelRow): RelayChannel {
  const setting = parseObject<Record<string, unknown>>(row.setting);
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    keys: usableKeys(row),
    baseURL: row.base_url || adapterForType(row.type)?.meta.defaultBaseURL || '',
    other: row.other ?? '',
    // Sent as a header: saving refuses anything but visible ASCII; one imported or edited in the database is left out.
    organization: /^[\x21-\x7e]+$/.test(row.openai_organization ?? '') ? row.openai_organization : '',
    adapter: adapterForType(row.type),
    modelMapping: parseObject<Record<string, string>>(row.model_mapping),
    statusCodeMapping: parseObject<Record<string, string>>(row.status_code_mapping),
    paramOverride: parseObject<Record<string, unknown>>(row.param_override),
    isAutoBan: Number(row.auto_ban) === 1,
    status: row.status,
    models: splitList(row.models),
    groups: splitList(row.group),
    limits: limitsOf(setting),
    keyMode: setting?.multi_key_mode === 'polling' ? 'polling' : 'random',
  };
}

export class ChannelIndex {
  private index: Index = new Map();
  private byId = new Map<number, RelayChannel>();
  private rebuilding: Promise<void> | null = null;
  private isDirty = false;
  /** Channels cooling down (circuit breaker, an upstream's Retry-After): id → until (ms); kept across rebuilds. */
  private readonly cooldowns = new Map<number, number>();

  constructor(private readonly storage: Storage) {}

  /** Rebuilds from the channels and abilities tables; concurrent calls coalesce into one more run. */
  rebuild(): Promise<void> {
    if (this.rebuilding) {
      this.isDirty = true;
      return this.rebuilding;
    }
    this.rebuilding = (async () => {
      do {
        this.isDirty = false;
        await this.load();
      } while (this.isDirty);
    })().finally(() => {
      this.rebuilding = null;
    });
    return this.rebuilding;
  }

  private async load(): Promise<void> {
    const [rows, abilities] = await Promise.all([
      this.storage.db.selectFrom('channels').selectAll().where('status', '=', 1).execute(),
      this.storage.db.selectFrom('abilities').selectAll().where('enabled', '=', 1).execute(),
    ]);
    const byId = new Map<number, RelayChannel>();
    for (const row of rows) byId.set(row.id, toRelayChannel(row));
    const buckets = new Map<string, Map<string, Map<number, Candidate[]>>>();
    for (const ability of abilities) {
      const channel = byId.get(ability.channel_id);
      if (!channel) continue;
      let models = buckets.get(ability.group);
      if (!models) buckets.set(ability.group, (models = new Map()));
      let priorities = models.get(ability.model);
      if (!priorities) models.set(ability.model, (priorities = new Map()));
      const priority = Number(ability.priority ?? 0);
      const list = priorities.get(priority) ?? [];
      list.push({ channel, weight: Math.max(0, Number(ability.weight ?? 0)) });
      priorities.set(priority, list);
    }
    const index: Index = new Map();
    for (const [group, models] of buckets) {
      const byModel = new Map<string, Candidate[][]>();
      for (const [model, priorities] of models) {
        byModel.set(
          model,
          [...priorities.entries()].sort((a, b) => b[0] - a[0]).map(([, list]) => list),
        );
      }
      index.set(group, byModel);
    }
    this.index = index;
    this.byId = byId;
  }

  /** Ids of the channels enabled in this index. */
  enabledIds(): number[] {
    return [...this.byId.values()].filter((channel) => channel.status === 1).map((channel) => channel.id);
  }

  /** Enabled channel by id (a pinned channel), or null. */
  findById(id: number): RelayChannel | null {
    const channel = this.byId.get(id);
    return channel && channel.status === 1 ? channel : null;
  }

  hasModel(group: string, model: string): boolean {
    return (this.index.get(group)?.get(model)?.length ?? 0) > 0;
  }

  /** Model names served in a group. */
  modelsOf(group: string): string[] {
    return [...(this.index.get(group)?.keys() ?? [])];
  }

  /** Groups that have at least one channel for the model whose type has an adapter (the pricing list). */
  groupsOf(model: string): string[] {
    const groups: string[] = [];
    for (const [group, models] of this.index) if (hasServableChannel(models.get(model))) groups.push(group);
    return groups;
  }

  /** Models some channel with an adapter serves (a row of a type without one, left enabled, does not count). */
  allModels(): string[] {
    const models = new Set<string>();
    for (const byModel of this.index.values()) {
      for (const [model, priorities] of byModel) if (hasServableChannel(priorities)) models.add(model);
    }
    return [...models].sort();
  }

  /** Takes a channel out of selection until `until` (ms); a later end wins. */
  coolDown(channelId: number, until: number): void {
    if (until > (this.cooldowns.get(channelId) ?? 0)) this.cooldowns.set(channelId, until);
  }

  /** Whether a channel is cooling down now (expired cooldowns are forgotten). */
  isCooling(channelId: number, now = Date.now()): boolean {
    const until = this.cooldowns.get(channelId);
    if (until === undefined) return false;
    if (until > now) return true;
    this.cooldowns.delete(channelId);
    return false;
  }

  /** When the first cooling channel for the model comes back (ms), or null when none is cooling. */
  cooldownEnd(group: string, model: string): number | null {
    if (this.cooldowns.size === 0) return null;
    let end: number | null = null;
    for (const candidates of this.index.get(group)?.get(model) ?? []) {
      for (const { channel } of candidates) {
        const until = channel.status === 1 && this.isCooling(channel.id) ? this.cooldowns.get(channel.id)! : null;
        if (until !== null && (end === null || until < end)) end = until;
      }
    }
    return end;
  }

  /**
   * Highest priority first; within a priority, weighted random (weights are the ability weights;
   * when they are all 0 the choice is uniform). Channels in `excluded` (already failed in this
   * request) and channels disabled since the last rebuild are skipped.
   */
  select(group: string, model: string, failed: ReadonlySet<number>): RelayChannel | null {
    const priorities = this.index.get(group)?.get(model);
    if (!priorities) return null;
    // Cooling channels are skipped like failed ones (the common case, none cooling, costs nothing).
    let excluded = failed;
    if (this.cooldowns.size > 0) {
      const now = Date.now();
      for (const candidates of priorities) {
        for (const { channel } of candidates) {
          if (!excluded.has(channel.id) && this.isCooling(channel.id, now)) excluded = new Set([...excluded, channel.id]);
        }
      }
    }
    for (const candidates of priorities) {
      let total = 0;
      let count = 0;
      for (const candidate of candidates) {
        if (candidate.channel.status !== 1 || excluded.has(candidate.channel.id)) continue;
        total += candidate.weight;
        count += 1;
      }
      if (count === 0) continue;
      if (total === 0) {
        let pick = Math.floor(Math.random() * count);
        for (const candidate of candidates) {
          if (candidate.channel.status !== 1 || excluded.has(candidate.channel.id)) continue;
          if (pick-- === 0) return candidate.channel;
        }
      }
      let point = Math.random() * total;
      let last: RelayChannel | null = null;
      for (const candidate of candidates) {
        if (candidate.channel.status !== 1 || excluded.has(candidate.channel.id) || candidate.weight === 0) continue;
        last = candidate.channel;
        point -= candidate.weight;
        if (point < 0) return candidate.channel;
      }
      if (last) return last;
    }
    return null;
  }
}
