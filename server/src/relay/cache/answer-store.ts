import type { Cache } from '../../cache/index.js';
import type { Usage } from '../billing/quota.js';

/** An answer as its client received it, with what its call was billed. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  isStream: boolean;
  /** The bytes of each write to the client: one for a whole answer, one per frame of a stream. */
  chunks: Buffer[];
  usage: Usage;
  /** The quota the original call was billed: a hit is billed `response_cache.hit_ratio` of it. */
  quota: number;
}

/** Where answers are kept: this instance's memory, or Redis when instances share it. */
export interface AnswerStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<StoredAnswer | null>;
  set(key: string, answer: StoredAnswer, ttlSeconds: number): Promise<void>;
}

/** The size an answer counts for in a bound: its bytes and a little for its fields. */
export const answerBytes = (answer: StoredAnswer): number => answer.chunks.reduce((sum, chunk) => sum + chunk.length, 256);

interface MemoryEntry {
  answer: StoredAnswer;
  bytes: number;
  expiresAt: number;
}

/**
 * One instance's answers, least recently used first out once their bytes pass `maxBytes()` (read at
 * every store, so `response_cache.max_bytes` applies without a restart). Expired entries go when read
 * or when the bound needs room.
 */
export class MemoryAnswerStore implements AnswerStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, MemoryEntry>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  async get(key: string): Promise<StoredAnswer | null> {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.bytes -= entry.bytes;
      return null;
    }
    // Map order is the recency order: a read moves the entry to the end.
    this.entries.set(key, entry);
    return entry.answer;
  }

  async set(key: string, answer: StoredAnswer, ttlSeconds: number): Promise<void> {
    const bytes = answerBytes(answer);
    const limit = this.maxBytes();
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (bytes > limit) return;
    // The least recently used go first (an expired entry is among them: nothing reads it).
    for (const [oldKey, old] of this.entries) {
      if (this.bytes + bytes <= limit) break;
      this.entries.delete(oldKey);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { answer, bytes, expiresAt: this.now() + ttlSeconds * 1000 });
    this.bytes += bytes;
  }
}

/** The JSON an answer is kept as in Redis (bytes as base64). */
interface EncodedAnswer {
  s: number;
  t: string;
  st: boolean;
  c: string[];
  u: Usage;
  q: number;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A stored value read back; anything that is not one of ours reads as a miss. */
export function decodeAnswer(text: string): StoredAnswer | null {
  let parsed: Partial<EncodedAnswer>;
  try {
    parsed = JSON.parse(text) as Partial<EncodedAnswer>;
  } catch {
    return null;
  }
  const { s, t, st, c, u, q } = parsed;
  if (
    !isCount(s) ||
    typeof t !== 'string' ||
    typeof st !== 'boolean' ||
    !Array.isArray(c) ||
    !c.every((chunk) => typeof chunk === 'string')
  )
    return null;
  if (!u || typeof u !== 'object' || !isCount(u.promptTokens) || !isCount(u.completionTokens) || !isCount(q)) return null;
  return {
    status: s,
    contentType: t,
    isStream: st,
    chunks: c.map((chunk) => Buffer.from(chunk, 'base64')),
    usage: { ...u, cachedTokens: isCount(u.cachedTokens) ? u.cachedTokens : 0 },
    quota: q,
  };
}

export function encodeAnswer(answer: StoredAnswer): string {
  const encoded: EncodedAnswer = {
    s: answer.status,
    t: answer.contentType,
    st: answer.isStream,
    c: answer.chunks.map((chunk) => chunk.toString('base64')),
    u: answer.usage,
    q: answer.quota,
  };
  return JSON.stringify(encoded);
}

/**
 * Answers shared by every instance through the app's Redis cache (`rc:<key>` under its prefix, kept
 * with the TTL). Each entry is bounded by `response_cache.max_entry_bytes` before it gets here; the
 * total is Redis's `maxmemory` policy, the operator's. A failing Redis is a miss, never a failed call.
 */
export class RedisAnswerStore implements AnswerStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly cache: Cache,
    private readonly onError: (error: unknown) => void,
  ) {}

  async get(key: string): Promise<StoredAnswer | null> {
    try {
      const text = await this.cache.get(`rc:${key}`);
      return text === null ? null : decodeAnswer(text);
    } catch (error) {
      this.onError(error);
      return null;
    }
  }

  async set(key: string, answer: StoredAnswer, ttlSeconds: number): Promise<void> {
    try {
      await this.cache.set(`rc:${key}`, encodeAnswer(answer), ttlSeconds);
    } catch (error) {
      this.onError(error);
    }
  }
}

/** The store of an app: Redis when its cache is Redis (instances share answers), else memory. */
export function createAnswerStore(cache: Cache, maxBytes: () => number, onError: (error: unknown) => void): AnswerStore {
  return cache.kind === 'redis' ? new RedisAnswerStore(cache, onError) : new MemoryAnswerStore(maxBytes);
}
