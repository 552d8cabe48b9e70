import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { createRequestEvents, type RequestEvents } from '../calls/request-record.js';
import { openStores, type StoreServices } from '../fleet/open-stores.js';
import type { LedgerServices } from '../ledger/open-ledger.js';
import { createObservability, type Observability } from '../observability/observability.js';
import { createLatencyTracker, type LatencyTracker } from '../routing/latency.js';
import { observeBreakerStore } from '../routing/observed-breaker-store.js';
import type { ManagedFileStore } from '../store/file-store.js';

/** Process-wide services shared by all requests (the store's, and those of this process). */
export interface SharedServices extends StoreServices {
  /** Uploads: bytes locally or in S3-compatible storage, records beside the other shared state. */
  files: ManagedFileStore;
  realtimeSecret: string;
  /** Request lifecycle events (access log, metrics, traces and the ledger subscribe). */
  events: RequestEvents;
  /** Metrics, traces and the access log (they listen to `events`). */
  observability: Observability;
  /** Usage ledger, managed keys and teams in PostgreSQL (`ledger.url`); undefined when off. */
  usageLedger?: LedgerServices;
  /** Observed time to first token per model (the `fastest` strategy). */
  latency: LatencyTracker;
  close(): Promise<void>;
}

/**
 * Builds the shared services from the config in force. `store.url: memory` keeps rate limits, spend, file
 * records and jobs in this process; a Redis URL keeps them in Redis so several instances
 * enforce one limit and one budget, with this process's memory as the fallback when Redis is
 * unreachable and `store.on_error` is `open` (`closed` answers 503 `store_unavailable`).
 */
export async function createSharedServices(runtimes: RuntimeStore, logger: Logger): Promise<SharedServices> {
  const { config } = runtimes.current();
  const observability = await createObservability(config, process.env);
  const base = {
    observability,
    realtimeSecret: config.realtime.secret ?? randomBytes(32).toString('hex'),
    events: createRequestEvents((e) => logger.error({ err: { message: (e as Error)?.message } }, 'request listener failed')),
    latency: createLatencyTracker(),
  };
  // PostgreSQL (pg) is loaded only when a ledger is configured. The ledger opens while the
  // store connects (openStores): each waits on its own server, and one after the other a
  // start waited for both servers' round trips in turn.
  const ledgerUrl = config.ledger.url;
  const ledgerOpening = ledgerUrl
    ? import('../ledger/open-ledger.js').then((m) => m.openLedger({ ...config.ledger, url: ledgerUrl }, base.events, logger))
    : Promise.resolve(undefined);
  const [ledgerOpened, storesOpened] = await Promise.allSettled([ledgerOpening, openStores(runtimes, logger, () => observability.hooks.storeError('redis'))]);
  if (ledgerOpened.status === 'rejected' || storesOpened.status === 'rejected') {
    // A start that fails leaves nothing behind: what did open is closed (tracing's exporter too).
    if (ledgerOpened.status === 'fulfilled') await ledgerOpened.value?.close().catch(() => undefined);
    if (storesOpened.status === 'fulfilled') await storesOpened.value.close().catch(() => undefined);
    await observability.close().catch(() => undefined);
    throw ledgerOpened.status === 'rejected' ? ledgerOpened.reason : (storesOpened as PromiseRejectedResult).reason;
  }
  const { stores, files, close: closeStores } = storesOpened.value;
  const usageLedger = ledgerOpened.value;
  return {
    ...base,
    ...stores,
    files,
    breaker: observeBreakerStore(stores.breaker, observability.hooks.breakerStateChanged),
    usageLedger,
    close: async () => {
      await closeStores();
      await usageLedger?.close();
      await observability.close();
    },
  };
}
