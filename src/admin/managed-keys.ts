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
   * Resolves when this instance hears the change notification for `id` (or after `timeoutMs`,
   * or at once when not listening). Called before a change and awaited after it, so the admin
   * answer leaves only once the notification is out: PostgreSQL signals every listening
   * instance at the same commit.
   */
  expectChange(id: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const CACHE_MAX = 10_000;
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
  const waiters = new Map<string, Set<() => void>>();
  const inflight = new Map<string, Promise<KeyWithTeam | undefined>>();
  let listening = false;
  let closed = false;
  let listener: pg.Client | undefined;
  let relisten: NodeJS.Timeout | undefined;

  const listen = async () => {
    if (closed) return;
    const client = new pg.Client({ connectionString: url, application_name: 'model-gateway-keys' });
    listener = client;
    const lost = (why: string) => {
      if (listener !== client) return;
      listening = false;
      listener = undefined;
      cache.clear();
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
      cache.clear();
      const w = msg.payload ? waiters.get(msg.payload) : undefined;
      if (w) for (const done of w) done();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEYS_CHANNEL}`);
      // Changes made while we were not listening: start from an empty cache.
      cache.clear();
      listening = true;
    } catch (e) {
      lost((e as Error).message);
    }
  };
  void listen();

  const read = (hex: string, hash: Buffer) => {
    let p = inflight.get(hex);
    if (!p) {
      p = store.findByHash(hash).finally(() => inflight.delete(hex));
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
          value = await read(hex, hash);
          if (cache.size >= CACHE_MAX) cache.clear();
          cache.set(hex, { value, at: Date.now() });
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
    invalidate: () => cache.clear(),
    expectChange(id, timeoutMs = 1000) {
      if (!listening) return Promise.resolve();
      return new Promise<void>((resolve) => {
        let set = waiters.get(id);
        if (!set) waiters.set(id, (set = new Set()));
        const done = () => {
          clearTimeout(timer);
          set!.delete(done);
          if (set!.size === 0 && waiters.get(id) === set) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        timer.unref();
        set.add(done);
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

/** The KeyEntry of a managed key: limits of the key, budgets of the key and its team. */
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
      ...(k.rpm !== null ? { rpm: k.rpm } : {}),
      ...(k.tpm !== null ? { tpm: k.tpm } : {}),
      ...(k.budget ? { budget: k.budget } : {}),
    },
    ...(models ? { modelPatterns: compileModelGlobs(models) } : {}),
    ...(k.team ? { team: { id: k.team.id, name: k.team.name, ...(k.team.budget ? { budget: k.team.budget } : {}) } } : {}),
  };
  entries.set(k, e);
  return e;
}
