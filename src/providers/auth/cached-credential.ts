/** A credential and when it stops being valid. */
export interface Expiring<T> {
  readonly value: T;
  /** Milliseconds since the epoch; undefined = does not expire. */
  readonly expiresAt?: number;
}

/** Timing of a CachedCredential (defaults suit hour-long cloud tokens). */
export interface CachedCredentialOptions {
  /** Longest lead before expiry at which a background refresh starts (default 5 min); short lives refresh at 3/4 of their life. */
  refreshLeadMs?: number;
  /** Longest margin before expiry after which a credential is no longer sent (default 30 s); short lives use 1/10 of their life. */
  expiryMarginMs?: number;
  /**
   * First wait before retrying a failed fetch (default 1 s, doubling up to 60 s). With no valid
   * value left, calls in that wait fail at once with the last error instead of fetching again,
   * so an outage of the token endpoint is not hammered by every request.
   */
  retryMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

const FIVE_MINUTES = 300_000;

/**
 * One credential fetched once and shared: concurrent callers wait on the same fetch
 * (single-flight), the value is served from memory while it is fresh, and a refresh starts in the
 * background before it expires, so requests never wait for a refresh and never fetch per call.
 * A credential nobody used since the last fetch is not refreshed (the next use fetches it);
 * a failed background refresh keeps the old value while it is valid and retries with backoff.
 * Only when no valid value is left does `get()` reject, with the fetch's own error; after a
 * failed fetch it waits (backoff) before fetching again.
 */
export class CachedCredential<T> {
  private current?: { value: T; expiresAt?: number; refreshAt: number; usableUntil: number };
  private inflight?: Promise<T>;
  private timer?: NodeJS.Timeout;
  private used = false;
  private retryDelay: number;
  /** Until when a failed fetch is not tried again (ms since the epoch). */
  private failedUntil = 0;
  /** Fetches made so far (tests, diagnostics). */
  fetches = 0;
  /** The last fetch error, kept until a fetch succeeds. */
  lastError?: unknown;

  constructor(private readonly fetcher: () => Promise<Expiring<T>>, private readonly options: CachedCredentialOptions = {}) {
    this.retryDelay = options.retryMs ?? 1000;
  }

  /** The credential: synchronously while it is fresh, else the one fetch in flight. */
  get(): T | Promise<T> {
    const c = this.current;
    const now = this.now();
    if (c && now < c.usableUntil) {
      this.used = true;
      if (now >= c.refreshAt && !this.inflight) this.refreshInBackground();
      return c.value;
    }
    this.used = true;
    if (this.inflight) return this.inflight;
    if (now < this.failedUntil) return Promise.reject(this.lastError);
    return this.fetch();
  }

  /** Starts the first fetch without waiting (startup warm-up); its failure is kept for the first use. */
  warm(): void {
    if (!this.current && !this.inflight) this.fetch().catch(() => undefined);
  }

  /** Stops the refresh timer (tests, shutdown). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private fetch(): Promise<T> {
    this.fetches++;
    const started = this.now();
    const p = this.fetcher().then(
      (got) => {
        this.inflight = undefined;
        this.lastError = undefined;
        this.failedUntil = 0;
        this.retryDelay = this.options.retryMs ?? 1000;
        this.store(got, started);
        return got.value;
      },
      (e: unknown) => {
        this.inflight = undefined;
        this.lastError = e;
        this.failedUntil = this.now() + this.retryDelay;
        this.retryDelay = Math.min(this.retryDelay * 2, 60_000);
        throw e;
      },
    );
    this.inflight = p;
    return p;
  }

  private store(got: Expiring<T>, fetchedAt: number): void {
    this.used = false;
    if (got.expiresAt === undefined) {
      this.current = { value: got.value, refreshAt: Infinity, usableUntil: Infinity };
      this.stop();
      return;
    }
    const life = Math.max(0, got.expiresAt - fetchedAt);
    const lead = Math.min(this.options.refreshLeadMs ?? FIVE_MINUTES, life / 4);
    const margin = Math.min(this.options.expiryMarginMs ?? 30_000, life / 10);
    this.current = { value: got.value, expiresAt: got.expiresAt, refreshAt: got.expiresAt - lead, usableUntil: got.expiresAt - margin };
    this.schedule(this.current.refreshAt - this.now());
  }

  /** Wakes up at refresh time: refreshes only a credential that was used since it was fetched. */
  private schedule(inMs: number): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.used) this.refreshInBackground();
    }, Math.max(0, inMs));
    this.timer.unref();
  }

  private refreshInBackground(): void {
    if (this.inflight) return;
    this.fetch().catch(() => {
      const c = this.current;
      if (!c) return;
      // Retry while the old value is still good; once it is not, the next use fetches itself.
      const wait = Math.min(this.failedUntil - this.now(), c.usableUntil - this.now());
      if (wait > 0) this.schedule(wait);
    });
  }
}

const shared = new Map<string, CachedCredential<unknown>>();

/**
 * The CachedCredential of one credential source, shared by every deployment, route and reload
 * that names the same source (`key`: the kind and the settings that identify it, never a secret
 * value): one fetch and one refresh timer per source in the process.
 */
export function sharedCredential<T>(key: string, make: () => CachedCredential<T>): CachedCredential<T> {
  let c = shared.get(key) as CachedCredential<T> | undefined;
  if (!c) {
    c = make();
    shared.set(key, c as CachedCredential<unknown>);
  }
  return c;
}

/** Forgets every shared credential and stops their timers (tests). */
export function forgetSharedCredentials(): void {
  for (const c of shared.values()) c.stop();
  shared.clear();
}
