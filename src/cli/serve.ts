import { compile } from '../compile/compile.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';
import { createLogger } from '../server/logger.js';
import { startGateway } from '../server/start.js';
import { reloadOnHangup } from './reload.js';

/** `gateway serve`: compile the config (refuse to start on errors) and listen. */
export async function runServe(configPath: string): Promise<number> {
  const { runtime, diagnostics } = compile(loadProject(configPath));
  for (const d of diagnostics) console.error(formatDiagnostic(d));
  if (!runtime) {
    console.error(`gateway: ${configPath} has errors; not starting (run \`npx gateway lint\`).`);
    return 1;
  }
  const logger = createLogger(runtime.config.server.log_level, { buffered: true });
  const gw = await startGateway(runtime, { logger });
  const enabled = [...runtime.providers.values()].filter((p) => !p.missing).map((p) => p.name);
  logger.info({ url: gw.url, providers: enabled, models: runtime.models.size }, 'gateway listening');
  // The log is buffered (one write per 4 KiB): push it out at least once a second.
  logger.flush();
  setInterval(() => logger.flush(), 1000).unref();
  if (runtime.generatedKey) {
    // Printed once, to the terminal only (never to the log stream).
    process.stderr.write(
      `\nNo API key configured. Generated one for this run:\n\n  ${runtime.generatedKey}\n\n` +
      `Set GATEWAY_API_KEYS=<key>[,<key>...] (or auth.keys with sha256 hashes in gateway.yaml) to choose your own.\n\n`,
    );
  }
  reloadOnHangup(configPath, gw.store, logger);
  const stop = () => { gw.close().finally(() => { logger.flush(); process.exit(0); }); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}
