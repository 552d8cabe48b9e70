import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createRuntimeStore, type RuntimeStore } from '../compile/runtime-store.js';
import type { Runtime } from '../compile/runtime.js';
import { loadBpe } from '../billing/bpe.js';
import { createApp } from './app.js';
import { createLogger } from './logger.js';
import { attachRealtime } from './realtime-upgrade.js';
import { createSharedServices } from './services.js';

/** A running gateway. */
export interface RunningGateway { server: Server; url: string; store: RuntimeStore; close(): Promise<void> }

/** Starts the HTTP server for a compiled runtime. `port: 0` picks a free port. */
export async function startGateway(runtime: Runtime, options: { host?: string; port?: number; logger?: Logger } = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger(runtime.config.server.log_level);
  const store = createRuntimeStore(runtime);
  const shared = await createSharedServices(runtime, logger);
  // Keys with token limits or budgets count tokens on every call: load the tokenizer now, before
  // listen(), rather than on a request (see billing/bpe.ts).
  if (runtime.keys.some((k) => k.spec.tpm !== undefined || k.spec.budget !== undefined)) await loadBpe();
  const app = createApp(store, shared, logger);
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Streams and long jobs (video polling) may legitimately outlast Node's default 5 min.
  server.requestTimeout = 0;
  const wss = attachRealtime(server, store, shared);
  const host = options.host ?? runtime.config.server.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? runtime.config.server.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    server,
    url,
    store,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await shared.close();
    },
  };
}
