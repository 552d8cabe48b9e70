import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createRuntimeStore, type RuntimeStore } from '../compile/runtime-store.js';
import type { Runtime } from '../compile/runtime.js';
import { startBpeWorker } from '../billing/bpe.js';
import { countsTokens } from '../calls/key-spend.js';
import { createApp } from './app.js';
import { drainServer } from './drain.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { createLogger } from '../observability/logger.js';
import { attachRealtime } from './realtime-upgrade.js';
import { createSharedServices, type SharedServices } from './services.js';
import { answerWhileStarting } from './starting.js';
import { collectStartupGarbage } from './startup-gc.js';
import { warmUpHttpClient } from '../upstream/warm-up.js';
import { warmCredentials } from '../providers/auth/warm.js';
import { prepareInIdleTurns } from '../config/request-schema.js';

/** A running gateway. */
export interface RunningGateway {
  server: Server;
  url: string;
  store: RuntimeStore;
  lifecycle: Lifecycle;
  /**
   * Puts a new runtime in force (its whole pipeline: routes, schemas, limits, keys, models,
   * providers) atomically; requests in flight finish on the one they started on. Throws when
   * the runtime cannot be served; the running one stays then.
   */
  reload(next: Runtime): void;
  /** Graceful drain (src/server/drain.ts) for `graceMs` (default `server.shutdown_grace_s`), then close. */
  drain(graceMs?: number): Promise<void>;
  /** Closes at once: every connection is cut. */
  close(): Promise<void>;
}

/** How `startGateway` listens and starts. */
export interface StartOptions {
  host?: string;
  /** `0` picks a free port. */
  port?: number;
  logger?: Logger;
  /**
   * Before reporting ready, send one request through a throwaway upstream client
   * (upstream/warm-up.ts, while the shared services open), then collect the young generation
   * (startup-gc.ts), so the first burst of traffic pays for neither. Set by `gateway serve`,
   * whose process is the gateway's own. An embedding process (the tests) leaves it off: its
   * heap is not the gateway's, and collecting it would cost every start.
   */
  warmStart?: boolean;
}

/**
 * How long a start waits for its shared services (store, ledger) and token counter before it
 * listens anyway, answering 503 `starting` meanwhile. A start with nothing slow to wait for is
 * up well within it (memory store: ~15 ms), so it goes from a closed port straight to ready and
 * no client polling an API route ever reads a 503; a start waiting on Redis (up to its 2 s
 * connect wait) or PostgreSQL answers /healthz and `starting` from here on.
 */
const LISTEN_WAIT_MS = 250;

/**
 * Starts the HTTP server for a compiled runtime. `port: 0` picks a free port. The shared
 * services open first; once up, or after LISTEN_WAIT_MS, it listens, answering 503 `starting`
 * (readiness included) until they are up, then serves the pipeline and reports ready.
 */
export async function startGateway(runtime: Runtime, options: StartOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(runtime.config.server.log_level);
  const lifecycle = createLifecycle();
  const store = createRuntimeStore(runtime);
  const server = createServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Streams and long jobs (video polling) may legitimately outlast Node's default 5 min.
  server.requestTimeout = 0;
  // Keys with token limits or budgets count tokens on every call: the counter's worker thread
  // loads its tables alongside the rest of startup, and the gateway reports ready once it has
  // (see billing/bpe.ts).
  const counterLoaded = needsTokenCounts(runtime) ? startBpeWorker() : undefined;
  const opening = createSharedServices(store, logger);
  // Handled here so a failure while the warm-up runs is not an unhandled rejection; it is
  // thrown below, where `opening` is awaited.
  opening.catch(() => undefined);
  // Cloud credentials (tokens) start fetching now, in the background; the first call awaits them if needed.
  warmCredentials(runtime.providers.values());
  // The warm-up needs no server: it runs while the store connects.
  if (options.warmStart) await warmUpHttpClient();
  await settledOrAfter(Promise.all([opening, counterLoaded]), LISTEN_WAIT_MS);
  const starting = answerWhileStarting(runtime);
  server.on('request', starting);
  const host = options.host ?? runtime.config.server.host;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? runtime.config.server.port, host, () => { server.off('error', reject); resolve(); });
    });
  } catch (e) {
    // Port taken: what did open (store, ledger) is closed, as when opening fails.
    await opening.then((s) => s.close(), () => undefined).catch(() => undefined);
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let shared: SharedServices;
  try {
    shared = await opening;
  } catch (e) {
    server.closeAllConnections();
    server.close();
    throw e;
  }
  await counterLoaded;
  const app = createApp(store, shared, logger, lifecycle);
  if (options.warmStart) collectStartupGarbage();
  // The pipeline and the realtime upgrades take over in the same turn as readiness: until then
  // every request (an upgrade too: with no 'upgrade' listener node hands it to 'request') gets
  // 503 `starting`, never a half-started gateway (served calls, refused sessions).
  server.off('request', starting);
  const listener = app.koa.callback();
  server.on('request', listener);
  const wss = attachRealtime(server, store, shared, { listener, accepting: () => lifecycle.state === 'ready' });
  lifecycle.markReady();
  prepareValidators(runtime);
  const services: SharedServices = shared;
  return {
    server,
    url,
    store,
    lifecycle,
    reload: (next) => {
      app.swap(next);
      // The fleet (and `gateway status`) learns the new config hash now, not at the next heartbeat.
      void services.fleet.beat().catch(() => undefined);
      prepareValidators(next);
      warmCredentials(next.providers.values());
      if (needsTokenCounts(next)) void startBpeWorker();
    },
    async drain(graceMs = store.current().config.server.shutdown_grace_s * 1000) {
      await drainServer({ server, wss, lifecycle, logger }, graceMs);
      await app.pipeline().close();
      await services.close();
    },
    async close() {
      lifecycle.beginDrain();
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Not awaited: a fetch still running ends on its own time limit.
      void app.pipeline().close().catch(() => undefined);
      await services.close();
    },
  };
}

/** The routes' validators are made on first use (compile.ts); here, in idle turns once serving. */
function prepareValidators(runtime: Runtime): void {
  prepareInIdleTurns(runtime.routes.flatMap((r) => [r.validate, r.validateMultipart]));
}

/** True when some configured key's calls are counted (key-policy.ts: a token limit or a budget). */
function needsTokenCounts(runtime: Runtime): boolean {
  return runtime.keys.some(countsTokens);
}

/** Resolves when `work` settles (either way) or after `ms`, whichever comes first. */
function settledOrAfter(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => { clearTimeout(timer); resolve(); };
    work.then(done, done);
  });
}
