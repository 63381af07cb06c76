import type { Cache } from '../cache/index.js';
import type { Storage } from '../db/index.js';
import { invalidInput } from '../lib/errors.js';
import { canManageOption, checkOptionDependencies, isOptionKey, optionRegistry, validateOption, type OptionKey } from './registry.js';

const changeChannel = 'options:changed';

/** A JSON value's kind: 'null', 'array', 'object', 'string', 'number' or 'boolean'. */
const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * Option values held in memory. Loaded at start, reloaded every SYNC_FREQUENCY seconds and at once
 * after a write; with Redis a write is published so every instance reloads at once.
 */
export class OptionStore {
  private values = new Map<OptionKey, string>();
  private parsedJson = new Map<OptionKey, { raw: string; value: unknown }>();
  private parsedNumbers = new Map<OptionKey, { raw: string; value: number }>();
  private readonly listeners: Array<(keys: OptionKey[]) => void> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly cache: Cache,
  ) {
    for (const [key, def] of Object.entries(optionRegistry)) this.values.set(key as OptionKey, def.default);
  }

  /** Reads every stored option; keys the registry does not know are kept in the table but ignored. */
  async load(): Promise<void> {
    const rows = await this.storage.db.selectFrom('options').select(['key', 'value']).execute();
    const next = new Map<OptionKey, string>();
    for (const [key, def] of Object.entries(optionRegistry)) next.set(key as OptionKey, def.default);
    for (const row of rows) if (isOptionKey(row.key)) next.set(row.key, row.value);
    const changed = [...next].filter(([key, value]) => this.values.get(key) !== value).map(([key]) => key);
    this.values = next;
    if (changed.length > 0) for (const listener of this.listeners) listener(changed);
  }

  async start(syncSeconds: number): Promise<void> {
    await this.load();
    await this.cache.subscribe(changeChannel, () => void this.load().catch(() => undefined));
    this.timer = setInterval(() => void this.load().catch(() => undefined), syncSeconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  onChange(listener: (keys: OptionKey[]) => void): void {
    this.listeners.push(listener);
  }

  get(key: OptionKey): string {
    return this.values.get(key) ?? optionRegistry[key].default;
  }

  bool(key: OptionKey): boolean {
    return this.get(key) === 'true';
  }

  /**
   * Numeric value, parsed once per stored value (relayed calls read several per call). A stored value
   * that `set` would refuse (not a number, out of the option's range: a hand-edited or migrated
   * database may hold one) reads as the default.
   */
  number(key: OptionKey): number {
    const raw = this.get(key);
    const cached = this.parsedNumbers.get(key);
    if (cached !== undefined && cached.raw === raw) return cached.value;
    const parsed = Number(raw);
    const value = Number.isFinite(parsed) && validateOption(key, raw) === null ? parsed : Number(optionRegistry[key].default);
    this.parsedNumbers.set(key, { raw, value });
    return value;
  }

  /**
   * Parsed JSON value, parsed once per stored value. A stored value that is not JSON, or not of its
   * default's kind (an object, an array, …: `null` where a table belongs, as a migrated or hand-edited
   * database may hold it), reads as the default: what `set` would refuse never reaches a caller.
   */
  json<T>(key: OptionKey): T {
    const raw = this.get(key);
    const cached = this.parsedJson.get(key);
    if (cached && cached.raw === raw) return cached.value as T;
    const fallback = JSON.parse(optionRegistry[key].default) as unknown;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = fallback;
    }
    if (fallback !== null && kindOf(value) !== kindOf(fallback)) value = fallback;
    this.parsedJson.set(key, { raw, value });
    return value as T;
  }

  /** Every option the caller may manage (canManageOption), with its value; secrets are never listed. */
  listPublic(isRoot = true): Array<{ key: string; value: string }> {
    return Object.entries(optionRegistry)
      .filter(([key, def]) => !('secret' in def && def.secret) && canManageOption(key as OptionKey, isRoot))
      .map(([key]) => ({ key, value: this.get(key as OptionKey) }));
  }

  /** Validates and stores one option, then tells every instance to reload. */
  async set(key: string, value: string): Promise<void> {
    if (!isOptionKey(key)) throw invalidInput(`未知的配置项：${key}`);
    const problem = validateOption(key, value) ?? checkOptionDependencies(key, value, (other) => this.get(other));
    if (problem) throw invalidInput(problem);
    await this.upsert(key, value);
    const previous = this.values.get(key);
    this.values.set(key, value);
    if (previous !== value) for (const listener of this.listeners) listener([key]);
    await this.cache.publish(changeChannel, key);
  }

  private async upsert(key: string, value: string): Promise<void> {
    const { db, kind } = this.storage;
    const insert = db.insertInto('options').values({ key, value });
    if (kind === 'mysql') await insert.onDuplicateKeyUpdate({ value }).execute();
    else await insert.onConflict((conflict) => conflict.column('key').doUpdateSet({ value })).execute();
  }
}
