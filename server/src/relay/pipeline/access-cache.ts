import type { BlockList } from 'node:net';
import type { Storage } from '../../db/index.js';
import type { TokenRow, UserRow } from '../../db/schema.js';
import { subscriptionFundingOf, type SubscriptionFunding } from '../ledger/funding-state.js';
import { parseAllowIps } from './ip-allow.js';

/**
 * Tokens and users held in memory for the relay. A row's quota fields are the database values
 * as last read (`base`); quota this instance spent but has not written yet is `pending`, and
 * quota reserved by requests in flight is `held`. Spendable = base − pending − held.
 */
export interface CachedUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  isDeleted: boolean;
  /** users.session_version: the playground's session cookie must carry it. */
  sessionVersion: number;
  acceptsUnsetModels: boolean;
  /** setting.quota_warning_threshold; 0 = the QuotaRemindThreshold option (notify/quota-reminder.ts). */
  warningThreshold: number;
  /**
   * How subscriptions fund this user's calls (ledger/funding-state.ts): null when the wallet pays
   * every call (no active subscription, or `wallet_only`), so a call checks this one field and runs
   * no subscription query. Re-read with the user (bus 'users' events, SYNC_FREQUENCY).
   */
  funding: SubscriptionFunding | null;
  quota: number;
  usedQuota: number;
  pendingQuota: number;
  pendingCount: number;
  held: number;
}

export interface CachedToken {
  id: number;
  userId: number;
  key: string;
  name: string;
  status: number;
  expiredTime: number;
  isUnlimited: boolean;
  modelLimits: Set<string> | null;
  allowIps: BlockList | null;
  group: string;
  isDeleted: boolean;
  remainQuota: number;
  usedQuota: number;
  pendingQuota: number;
  held: number;
  /** Requests in flight allowed at once, across instances (0: no limit). */
  maxConcurrency: number;
  /** An `auto` token: failover may go on into the next auto group (tokens.cross_group_retry). */
  isCrossGroupRetry: boolean;
  /** Seconds this token's answers are kept in the response cache (tokens.response_cache_ttl; 0: its group's setting). */
  responseCacheTtl: number;
}

const missingKeyTtlMs = 5_000;
const reloadChunk = 500;

/** setting.quota_warning_threshold as a non-negative number, 0 when unset or unreadable. */
function settingWarningThreshold(setting: string): number {
  if (!setting) return 0;
  try {
    const value = Number((JSON.parse(setting) as Record<string, unknown>).quota_warning_threshold);
    return Number.isFinite(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}

function settingAcceptsUnset(setting: string): boolean {
  if (!setting) return false;
  try {
    const parsed = JSON.parse(setting) as Record<string, unknown>;
    return parsed.accept_unset_model_ratio_model === true || parsed.accept_unset_model_ratio_model === 'true';
  } catch {
    return false;
  }
}

type UserFields = Pick<
  UserRow,
  'id' | 'username' | 'role' | 'status' | 'group' | 'quota' | 'used_quota' | 'setting' | 'deleted_at' | 'session_version'
>;
const userColumns = [
  'id',
  'username',
  'role',
  'status',
  'group',
  'quota',
  'used_quota',
  'setting',
  'deleted_at',
  'session_version',
] as const;

export class AccessCache {
  private readonly tokensByKey = new Map<string, CachedToken>();
  private readonly tokensById = new Map<number, CachedToken>();
  private readonly users = new Map<number, CachedUser>();
  private readonly missingKeys = new Map<string, number>();
  private readonly loadingKeys = new Map<string, Promise<CachedToken | null>>();
  private readonly loadingUsers = new Map<number, Promise<CachedUser | null>>();

  constructor(private readonly storage: Storage) {}

  /** The token for a key, from memory; the first use of a key reads it once from the database. */
  findToken(key: string): CachedToken | null | Promise<CachedToken | null> {
    const cached = this.tokensByKey.get(key);
    if (cached) return cached;
    const missingUntil = this.missingKeys.get(key);
    if (missingUntil !== undefined && missingUntil > Date.now()) return null;
    let loading = this.loadingKeys.get(key);
    if (!loading) {
      loading = this.loadTokenByKey(key).finally(() => this.loadingKeys.delete(key));
      this.loadingKeys.set(key, loading);
    }
    return loading;
  }

  findUser(id: number): CachedUser | null | Promise<CachedUser | null> {
    const cached = this.users.get(id);
    if (cached) return cached;
    let loading = this.loadingUsers.get(id);
    if (!loading) {
      loading = this.loadUsers([id])
        .then(() => this.users.get(id) ?? null)
        .finally(() => this.loadingUsers.delete(id));
      this.loadingUsers.set(id, loading);
    }
    return loading;
  }

  cachedUsers(): IterableIterator<CachedUser> {
    return this.users.values();
  }

  private async loadTokenByKey(key: string): Promise<CachedToken | null> {
    // Keys are printable ASCII; anything else (a NUL byte, other text) is no key, and never reaches the database.
    if (key.length > 64 || !/^[\x21-\x7e]+$/.test(key)) return null;
    const row = await this.storage.db.selectFrom('tokens').selectAll().where('key', '=', key).executeTakeFirst();
    if (!row || row.deleted_at !== null) {
      this.missingKeys.set(key, Date.now() + missingKeyTtlMs);
      return null;
    }
    return this.applyToken(row);
  }

  private applyToken(row: TokenRow): CachedToken {
    const existing = this.tokensById.get(row.id);
    const fields = {
      id: row.id,
      userId: row.user_id,
      key: row.key,
      name: row.name,
      status: row.status,
      expiredTime: Number(row.expired_time),
      isUnlimited: Number(row.unlimited_quota) === 1,
      modelLimits:
        Number(row.model_limits_enabled) === 1
          ? new Set(
              row.model_limits
                .split(',')
                .map((model) => model.trim())
                .filter(Boolean),
            )
          : null,
      allowIps: parseAllowIps(row.allow_ips ?? ''),
      group: row.group ?? '',
      isDeleted: row.deleted_at !== null,
      remainQuota: Number(row.remain_quota),
      usedQuota: Number(row.used_quota),
      maxConcurrency: Math.max(0, Number(row.max_concurrency ?? 0)),
      isCrossGroupRetry: Number(row.cross_group_retry ?? 0) === 1,
      responseCacheTtl: Math.max(0, Number(row.response_cache_ttl ?? 0)),
    };
    if (existing) {
      if (existing.key !== row.key) this.tokensByKey.delete(existing.key);
      Object.assign(existing, fields);
      this.tokensByKey.set(row.key, existing);
      return existing;
    }
    const token: CachedToken = { ...fields, pendingQuota: 0, held: 0 };
    this.tokensByKey.set(token.key, token);
    this.tokensById.set(token.id, token);
    this.missingKeys.delete(token.key);
    return token;
  }

  private applyUser(row: UserFields, hasSubscription: boolean): void {
    const fields = {
      id: row.id,
      username: row.username,
      role: row.role,
      status: row.status,
      group: row.group || 'default',
      isDeleted: row.deleted_at !== null,
      sessionVersion: Number(row.session_version),
      // Only an admin (role 10+) may make unpriced models free for themselves.
      acceptsUnsetModels: row.role >= 10 && settingAcceptsUnset(row.setting),
      warningThreshold: settingWarningThreshold(row.setting),
      funding: subscriptionFundingOf(row.setting, hasSubscription),
      quota: Number(row.quota),
      usedQuota: Number(row.used_quota),
    };
    const existing = this.users.get(row.id);
    if (existing) Object.assign(existing, fields);
    else this.users.set(row.id, { ...fields, pendingQuota: 0, pendingCount: 0, held: 0 });
  }

  private async loadUsers(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += reloadChunk) {
      const chunk = ids.slice(i, i + reloadChunk);
      const rows = await this.storage.db.selectFrom('users').select(userColumns).where('id', 'in', chunk).execute();
      const subscribed = await this.subscribedUsers(chunk);
      for (const row of rows) this.applyUser(row, subscribed.has(row.id));
      const found = new Set(rows.map((row) => row.id));
      for (const id of chunk) {
        const user = this.users.get(id);
        if (!found.has(id) && user) user.isDeleted = true;
      }
    }
  }

  /** Which of `ids` have an active subscription (read with the users, never per request). */
  private async subscribedUsers(ids: number[]): Promise<Set<number>> {
    const rows = await this.storage.db
      .selectFrom('user_subscriptions')
      .select('user_id')
      .distinct()
      .where('user_id', 'in', ids)
      .where('status', '=', 'active')
      .execute();
    return new Set(rows.map((row) => row.user_id));
  }

  private async loadTokens(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += reloadChunk) {
      const chunk = ids.slice(i, i + reloadChunk);
      const rows = await this.storage.db.selectFrom('tokens').selectAll().where('id', 'in', chunk).execute();
      for (const row of rows) this.applyToken(row);
      const found = new Set(rows.map((row) => row.id));
      for (const id of chunk) {
        const token = this.tokensById.get(id);
        if (!found.has(id) && token) token.isDeleted = true;
      }
    }
  }

  /** Re-reads one token (payload of a 'tokens' bus event) or, with no id, every cached token. */
  async reloadTokens(id?: number): Promise<void> {
    this.missingKeys.clear();
    const ids = id !== undefined && Number.isFinite(id) ? [id] : [...this.tokensById.keys()];
    if (id !== undefined && Number.isFinite(id) && !this.tokensById.has(id)) return;
    await this.loadTokens(ids);
  }

  async reloadUsers(id?: number): Promise<void> {
    const ids = id !== undefined && Number.isFinite(id) ? [id].filter((value) => this.users.has(value)) : [...this.users.keys()];
    await this.loadUsers(ids);
  }

  /** Marks a token expired (3) or exhausted (4) in memory; the caller writes the row. */
  setTokenStatus(token: CachedToken, status: number): void {
    token.status = status;
  }
}
