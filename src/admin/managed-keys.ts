import pg from 'pg';
import { compileModelGlobs } from '../compile/keys.js';
import type { KeyEntry } from '../compile/runtime.js';
import { KEYS_CHANNEL, type KeyStore } from './key-store.js';
import type { KeyWithTeam } from './key-records.js';

/** What authentication learns about a presented managed key. */
export type ManagedKeyLookup =
  | { status: 'ok'; entry: KeyEntry }
  | { status: 'unknown' | 'revoked' | 'expired' };

/** Managed keys as authentication sees them: cached, dropped at once when any instance changes one. */
export interface ManagedKeys {
  lookup(hash: Buffer): Promise<ManagedKeyLookup>;
  /** The key with this id, read from the database (realtime sessions find their key by id). */
  lookupById(id: string): Promise<ManagedKeyLookup>;
  /** Drops every cached key (called after a local change; notifications do it for the others). */
  invalidate(): void;
  /**
   * Resolves when every instance listening on this database has acknowledged the change
   * notification for `id` (or after `timeoutMs`, or at once when not listening). Called before
   * a change and awaited after it, so the admin answer leaves only once every instance has
   * dropped its cached copy: PostgreSQL signals all listeners at the commit, but each hears it
   * on its own connection, a few milliseconds apart under load.
   */
  expectChange(id: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const CACHE_MAX = 10_000;
/** Each instance answers a change notification on this channel once it has cleared its cache. */
const HEARD_CHANNEL = `${KEYS_CHANNEL}_heard`;
/** The listener connection's name: counting these in pg_stat_activity counts the instances. */
const LISTENER_NAME = 'model-gateway-keys';

/** An admin change waiting for every listening instance to acknowledge it. */
interface ChangeWaiter { heard: number; needed: number; done: () => void }
const RELISTEN_MS = 1000;

/**
 * Looks keys up by hash through a cache. Each instance LISTENs on the change channel and clears
 * its cache on every notification, so a revoke or rotate is refused at once everywhere; while
 * that connection is down the cache is bypassed (every lookup reads the database) and
 * `ttlMs` bounds staleness as a second line. When the database cannot be read, a cached
 * answer is used rather than refusing every managed key.
 */
export function createManagedKeys(store: KeyStore, url: string, ttlMs: number, onError: (message: string) => void): ManagedKeys {
  const cache = new Map<string, { value: KeyWithTeam | undefined; at: number }>();
  const waiters = new Map<string, Set<ChangeWaiter>>();
  const inflight = new Map<string, Promise<KeyWithTeam | undefined>>();
  // Bumped by every clear: a read that started before a change must not put what it found back
  // into the cache (nor be shared with lookups made after the change).
  let generation = 0;
  const clear = () => {
    generation++;
    cache.clear();
    inflight.clear();
  };
  let listening = false;
  let closed = false;
  let listener: pg.Client | undefined;
  let relisten: NodeJS.Timeout | undefined;

  const listen = async () => {
    if (closed) return;
    const client = new pg.Client({ connectionString: url, application_name: LISTENER_NAME });
    listener = client;
    const lost = (why: string) => {
      if (listener !== client) return;
      listening = false;
      listener = undefined;
      clear();
      client.end().catch(() => undefined);
      if (!closed) {
        onError(`managed keys: change notifications lost (${why}); reading keys from the database until they return`);
        relisten = setTimeout(() => void listen(), RELISTEN_MS);
        relisten.unref();
      }
    };
    client.on('error', (e) => lost(e.message));
    client.on('end', () => lost('connection closed'));
    client.on('notification', (msg) => {
      const id = msg.payload ?? '';
      if (msg.channel === HEARD_CHANNEL) {
        for (const w of waiters.get(id) ?? []) if (++w.heard >= w.needed) w.done();
        return;
      }
      clear();
      // Acknowledged only after the clear: whoever counts this answer knows our cache is clean.
      client.query('SELECT pg_notify($1, $2)', [HEARD_CHANNEL, id]).catch(() => undefined);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEYS_CHANNEL}; LISTEN ${HEARD_CHANNEL}`);
      // Changes made while we were not listening: start from an empty cache.
      clear();
      listening = true;
    } catch (e) {
      lost((e as Error).message);
    }
  };
  void listen();

  const read = (hex: string, hash: Buffer) => {
    let p = inflight.get(hex);
    if (!p) {
      const mine: Promise<KeyWithTeam | undefined> = store.findByHash(hash).finally(() => {
        if (inflight.get(hex) === mine) inflight.delete(hex);
      });
      p = mine;
      inflight.set(hex, p);
    }
    return p;
  };

  return {
    async lookup(hash) {
      const hex = hash.toString('hex');
      const cached = cache.get(hex);
      let value: KeyWithTeam | undefined;
      if (cached && listening && Date.now() - cached.at < ttlMs) {
        value = cached.value;
      } else {
        try {
          const readAt = generation;
          value = await read(hex, hash);
          if (readAt === generation) {
            if (cache.size >= CACHE_MAX) cache.clear();
            cache.set(hex, { value, at: Date.now() });
          }
        } catch (e) {
          if (!cached) throw e;
          onError(`managed keys: database unreadable, using the cached key: ${(e as Error).message}`);
          value = cached.value;
        }
      }
      return statusOf(value, hash);
    },
    async lookupById(id) {
      return statusOf(await store.findById(id), Buffer.alloc(0));
    },
    invalidate: clear,
    expectChange(id, timeoutMs = 1000) {
      const client = listener;
      if (!listening || !client) return Promise.resolve();
      return new Promise<void>((resolve) => {
        let set = waiters.get(id);
        if (!set) waiters.set(id, (set = new Set()));
        // Until the count is known, wait for our own acknowledgement at least.
        const waiter: ChangeWaiter = { heard: 0, needed: 1, done: () => undefined };
        waiter.done = () => {
          clearTimeout(timer);
          set!.delete(waiter);
          if (set!.size === 0 && waiters.get(id) === set) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(waiter.done, timeoutMs);
        timer.unref();
        set.add(waiter);
        // Counted before the change commits: an instance that starts listening later starts
        // with an empty cache and owes no acknowledgement.
        client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [LISTENER_NAME])
          .then((r) => {
            waiter.needed = Math.max(1, r.rows[0]?.n ?? 1);
            if (waiter.heard >= waiter.needed) waiter.done();
          })
          .catch(() => undefined);
      });
    },
    async close() {
      closed = true;
      if (relisten) clearTimeout(relisten);
      const c = listener;
      listener = undefined;
      listening = false;
      await c?.end().catch(() => undefined);
    },
  };
}

function statusOf(value: KeyWithTeam | undefined, hash: Buffer): ManagedKeyLookup {
  if (!value) return { status: 'unknown' };
  if (value.revoked_at) return { status: 'revoked' };
  if (value.expires_at && Date.parse(value.expires_at) <= Date.now()) return { status: 'expired' };
  return { status: 'ok', entry: entryOf(value, hash) };
}

// KeyEntry objects are rebuilt only when the record changes (cache entries are replaced then).
const entries = new WeakMap<KeyWithTeam, KeyEntry>();

/** The KeyEntry of a managed key: limits and provider globs of the key, budgets of the key and its team. */
function entryOf(k: KeyWithTeam, hash: Buffer): KeyEntry {
  let e = entries.get(k);
  if (e) return e;
  const models = k.models ?? k.team?.models ?? undefined;
  e = {
    hash,
    id: k.id,
    spec: {
      name: k.name,
      sha256: '',
      ...(models ? { models } : {}),
      ...(k.providers ? { providers: k.providers } : {}),
      ...(k.rpm !== null ? { rpm: k.rpm } : {}),
      ...(k.tpm !== null ? { tpm: k.tpm } : {}),
      ...(k.budget ? { budget: k.budget } : {}),
    },
    ...(models ? { modelPatterns: compileModelGlobs(models) } : {}),
    ...(k.providers ? { providerPatterns: compileModelGlobs(k.providers) } : {}),
    ...(k.team ? { team: { id: k.team.id, name: k.team.name, ...(k.team.budget ? { budget: k.team.budget } : {}) } } : {}),
  };
  entries.set(k, e);
  return e;
}
