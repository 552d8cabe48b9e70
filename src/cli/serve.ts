import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { compile } from '../compile/compile.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';
import { releaseMetaSchemas } from '../config/meta-schema.js';
import { createLogger } from '../observability/logger.js';
import { startGateway } from '../server/start.js';
import { pidFilePath, reloadOnHangup } from './reload.js';

/** Signals this close to the one that started the drain are the same request delivered twice. */
const REPEATED_SIGNAL_MS = 250;

/**
 * `gateway serve`: compile the config (refuse to start on errors) and listen. SIGHUP reloads
 * the config; SIGTERM/SIGINT drain gracefully (`server.shutdown_grace_s`) and exit 0; a second
 * SIGTERM/SIGINT during the drain, REPEATED_SIGNAL_MS or more after the first, exits at once
 * with 1.
 */
export async function runServe(configPath: string): Promise<number> {
  const { runtime, diagnostics } = compile(loadProject(configPath));
  // Validation is done; the validators are loaded again only if a reload needs them.
  releaseMetaSchemas();
  for (const d of diagnostics) console.error(formatDiagnostic(d));
  if (!runtime) {
    console.error(`gateway: ${configPath} has errors; not starting (run \`npx gateway lint\`).`);
    return 1;
  }
  const logger = createLogger(runtime.config.server.log_level, { buffered: true });
  const gw = await startGateway(runtime, { logger, warmStart: true });
  const enabled = [...runtime.providers.values()].filter((p) => !p.missing).map((p) => p.name);
  logger.info({ url: gw.url, providers: enabled, models: runtime.models.size }, 'gateway listening');
  // The log is buffered (one write per 4 KiB): push it out at least once a second.
  logger.flush();
  const flusher = setInterval(() => logger.flush(), 1000);
  flusher.unref();
  if (runtime.generatedKey) printGeneratedKey(runtime.generatedKey);
  const pidFile = writePidFile();
  const stopReloading = reloadOnHangup(configPath, gw, logger, printGeneratedKey);
  let draining = false;
  let drainSignalAt = 0;
  const stop = (signal: NodeJS.Signals) => {
    if (draining) {
      // One Ctrl-C can arrive twice within a few ms: from the terminal (to the whole process
      // group) and forwarded by npm (`npm start` execs the gateway as npm's child). Only a later
      // signal is someone asking again.
      if (Date.now() - drainSignalAt < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal during drain; exiting now');
      logger.flush();
      process.exit(1);
    }
    draining = true;
    drainSignalAt = Date.now();
    stopReloading();
    logger.info({ signal }, 'shutting down');
    gw.drain().then(
      () => { logger.info('gateway stopped'); return 0; },
      (e: unknown) => { logger.error({ err: { message: (e as Error)?.message } }, 'drain failed'); return 1; },
    ).then((code) => {
      if (pidFile) rmSync(pidFile, { force: true });
      logger.flush();
      process.exit(code);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return -1;
}

/** Printed to the terminal only (never to the log stream). */
function printGeneratedKey(key: string): void {
  process.stderr.write(
    `\nNo API key configured. Generated one for this run:\n\n  ${key}\n\n` +
    `Set GATEWAY_API_KEYS=<key>[,<key>...] (or auth.keys with sha256 hashes in gateway.yaml) to choose your own.\n\n`,
  );
}

/** Records the process id for `gateway reload`; a read-only disk only loses that convenience. */
function writePidFile(): string | undefined {
  const file = pidFilePath();
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${process.pid}\n`);
    return file;
  } catch {
    return undefined;
  }
}
