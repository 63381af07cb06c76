import { relayOf } from './test-server.js';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../src/context.js';
import { insertReturningId } from '../../src/db/index.js';

/**
 * Relay test data written straight to the tables with Kysely (as the channel and token API would),
 * followed by the bus event the API publishes, so the relay's memory caches pick it up.
 */
export interface UserFixture {
  username?: string;
  quota?: number;
  group?: string;
  role?: number;
  status?: number;
  setting?: string;
}

export async function createRelayUser(ctx: AppContext, options: UserFixture = {}): Promise<number> {
  return insertReturningId(ctx.storage, 'users', {
    username: options.username ?? `u${randomBytes(4).toString('hex')}`,
    password: 'not-a-real-hash',
    role: options.role ?? 1,
    status: options.status ?? 1,
    quota: options.quota ?? 100_000_000,
    group: options.group ?? 'default',
    setting: options.setting ?? '',
    created_time: Math.floor(Date.now() / 1000),
  });
}

export interface TokenFixture {
  name?: string;
  remainQuota?: number;
  isUnlimited?: boolean;
  expiredTime?: number;
  modelLimits?: string[];
  allowIps?: string;
  group?: string;
  status?: number;
  maxConcurrency?: number;
  /** tokens.cross_group_retry (an `auto` token's failover into the next auto group). */
  crossGroupRetry?: boolean;
  /** tokens.response_cache_ttl (seconds answers are served from the response cache; 0: the group's setting). */
  responseCacheTtl?: number;
}

export async function createRelayToken(
  ctx: AppContext,
  userId: number,
  options: TokenFixture = {},
): Promise<{ id: number; key: string; apiKey: string }> {
  const key = randomBytes(36).toString('base64url').replace(/[-_]/g, 'x').slice(0, 48);
  const id = await insertReturningId(ctx.storage, 'tokens', {
    user_id: userId,
    key,
    name: options.name ?? `token-${id6()}`,
    status: options.status ?? 1,
    created_time: Math.floor(Date.now() / 1000),
    expired_time: options.expiredTime ?? -1,
    remain_quota: options.remainQuota ?? 0,
    unlimited_quota: (options.isUnlimited ?? options.remainQuota === undefined) ? 1 : 0,
    model_limits_enabled: options.modelLimits ? 1 : 0,
    model_limits: (options.modelLimits ?? []).join(','),
    allow_ips: options.allowIps ?? '',
    group: options.group ?? '',
    max_concurrency: options.maxConcurrency ?? 0,
    cross_group_retry: options.crossGroupRetry ? 1 : 0,
    response_cache_ttl: options.responseCacheTtl ?? 0,
  });
  await ctx.bus.publish('tokens', String(id));
  return { id, key, apiKey: `sk-${key}` };
}

const id6 = () => randomBytes(3).toString('hex');

export interface ChannelFixture {
  type?: number;
  name?: string;
  key: string;
  baseURL: string;
  models: string[];
  groups?: string[];
  priority?: number;
  weight?: number;
  modelMapping?: Record<string, string>;
  statusCodeMapping?: Record<string, string>;
  paramOverride?: Record<string, unknown>;
  organization?: string;
  autoBan?: boolean;
  status?: number;
  testModel?: string;
  /** The channel's `setting` JSON (limits, multi-key mode). */
  setting?: Record<string, unknown>;
}

export async function createRelayChannel(ctx: AppContext, options: ChannelFixture): Promise<number> {
  const groups = options.groups ?? ['default'];
  const id = await insertReturningId(ctx.storage, 'channels', {
    type: options.type ?? 1,
    name: options.name ?? `channel-${id6()}`,
    key: options.key,
    base_url: options.baseURL,
    models: options.models.join(','),
    group: groups.join(','),
    priority: options.priority ?? 0,
    weight: options.weight ?? 0,
    model_mapping: options.modelMapping ? JSON.stringify(options.modelMapping) : '',
    status_code_mapping: options.statusCodeMapping ? JSON.stringify(options.statusCodeMapping) : '',
    param_override: options.paramOverride ? JSON.stringify(options.paramOverride) : '',
    openai_organization: options.organization ?? '',
    auto_ban: options.autoBan === false ? 0 : 1,
    status: options.status ?? 1,
    test_model: options.testModel ?? '',
    setting: options.setting ? JSON.stringify(options.setting) : '',
    created_time: Math.floor(Date.now() / 1000),
  });
  const rows = groups.flatMap((group) =>
    options.models.map((model) => ({
      group,
      model,
      channel_id: id,
      enabled: (options.status ?? 1) === 1 ? 1 : 0,
      priority: options.priority ?? 0,
      weight: options.weight ?? 0,
      tag: '',
    })),
  );
  if (rows.length > 0) await ctx.storage.db.insertInto('abilities').values(rows).execute();
  await ctx.bus.publish('channels');
  await relayOf(ctx).channels.rebuild();
  return id;
}

export async function setOption(ctx: AppContext, key: string, value: string): Promise<void> {
  await ctx.options.set(key, value);
}

/** Writes every pending counter and log row now (after the bills still being split with a subscription: ledger/funding-settle.ts). */
export async function flushRelay(ctx: AppContext): Promise<void> {
  for (let waited = 0; ctx.lifecycle.callsInFlight > 0 && waited < 10_000; waited += 5)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await relayOf(ctx).usage.flush();
}

/** A user's consume log rows (type 2), after writing what is pending. */
export async function consumeLogsOf(ctx: AppContext, userId: number) {
  await flushRelay(ctx);
  return ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 2).execute();
}

/** Waits until the token/user reload queued by a bus event has run. */
export async function settleBus(ctx: AppContext): Promise<void> {
  await relayOf(ctx).usage.exclusive(async () => undefined);
}
