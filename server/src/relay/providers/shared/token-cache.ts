/** A credential a provider issued, with the time (ms since the epoch) it stops being valid. */
export interface IssuedToken {
  token: string;
  expiresAtMs: number;
}

/**
 * In-memory credentials per key (Vertex service accounts, Baidu API keys, Zhipu v3 JWTs), reused
 * until `refreshMarginMs` before they expire. Concurrent callers share one in-flight issue per key;
 * a failed issue is not cached (the next caller tries again). The clock is injected for tests.
 */
export class TokenCache<Credential> {
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly inFlight = new Map<string, Promise<IssuedToken>>();

  constructor(
    /** Issues a new token for a credential; `nowMs` is the cache's clock. */
    private readonly issue: (credential: Credential, nowMs: number) => Promise<IssuedToken>,
    private readonly refreshMarginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(cacheKey: string, credential: Credential): Promise<string> {
    const cached = this.tokens.get(cacheKey);
    if (cached && this.now() < cached.expiresAtMs - this.refreshMarginMs) return cached.token;
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = this.issue(credential, this.now())
        .then((token) => {
          this.tokens.set(cacheKey, token);
          return token;
        })
        .finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    return (await pending).token;
  }

  /** Forgets one key's token (the provider said it is invalid or expired). */
  forget(cacheKey: string): void {
    this.tokens.delete(cacheKey);
  }

  clear(): void {
    this.tokens.clear();
  }
}
