import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { compile } from '../compile/compile.js';
import type { GatewayConfig } from '../config/types.js';
import { formatDiagnostic, hasErrors, type Diagnostic } from '../config/diagnostics.js';
import type { Env } from '../config/env.js';
import { loadProject } from '../config/load-project.js';
import type { RunningGateway } from '../server/start.js';
import { releaseMetaSchemas } from '../config/meta-schema.js';

/** What a reload did. */
export interface ReloadOutcome {
  applied: boolean;
  diagnostics: Diagnostic[];
  /** Settings that changed but only take effect on restart (listener, shared store, files dir). */
  restartNeeded: string[];
  /** Set when the new runtime generated a key (none configured and none generated before). */
  newGeneratedKey?: string;
}

/**
 * Re-reads the config (gateway.yaml, routes/*.yaml, secret files) and puts it in force when it
 * compiles with zero errors and its pipeline builds; otherwise nothing changes and the running
 * config keeps serving. Everything the request pipeline reads reloads: routes and their
 * schemas, limits, keys, providers, models. Shared services (store connections, limiter state,
 * realtime secret) and the generated key are kept.
 */
export function reloadGateway(configPath: string, gw: Pick<RunningGateway, 'store' | 'reload'>, env: Env = process.env): ReloadOutcome {
  const previous = gw.store.current();
  const { runtime, diagnostics } = compile(loadProject(configPath, env), env, { generatedKey: previous.generatedKey });
  releaseMetaSchemas();
  if (!runtime || hasErrors(diagnostics)) return { applied: false, diagnostics, restartNeeded: [] };
  try {
    gw.reload(runtime);
  } catch (e) {
    const finding: Diagnostic = { file: configPath, line: 1, col: 1, code: 'E_PIPELINE', severity: 'error', message: (e as Error).message };
    return { applied: false, diagnostics: [...diagnostics, finding], restartNeeded: [] };
  }
  return {
    applied: true,
    diagnostics,
    restartNeeded: restartOnlyChanges(previous.config, runtime.config),
    newGeneratedKey: runtime.generatedKey && runtime.generatedKey !== previous.generatedKey ? runtime.generatedKey : undefined,
  };
}

/** Settings read once at startup, by dotted name. */
const RESTART_ONLY: ReadonlyArray<[string, (c: GatewayConfig) => unknown]> = [
  ['server.host', (c) => c.server.host],
  ['server.port', (c) => c.server.port],
  ['store.url', (c) => c.store.url],
  ['store.on_error', (c) => c.store.on_error],
  ['files.dir', (c) => c.files.dir],
  ['realtime.secret', (c) => c.realtime.secret],
];

function restartOnlyChanges(before: GatewayConfig, after: GatewayConfig): string[] {
  return RESTART_ONLY.filter(([, read]) => read(before) !== read(after)).map(([name]) => name);
}

/**
 * Reloads on SIGHUP, logging the outcome (refusals with every finding at file:line:col).
 *
 * A reload compiles the whole config on the event loop (tens of ms; the first one after a start
 * several hundred). SIGHUPs are coalesced: one that arrives while a reload is queued or running
 * asks for one more reload, which reads the files as they are when it runs, and each reload runs
 * in its own loop turn (setImmediate), after the I/O that waited for the previous one. A storm of
 * signals (a config-management tool sending one per file it touched) thus costs one or two
 * compiles, not one per signal back to back with every stream in flight stalled meanwhile. A
 * reload that throws (it should not) is logged and leaves the running config serving: an
 * exception out of a signal handler would end the process and every request in flight.
 */
export function reloadOnHangup(configPath: string, gw: RunningGateway, logger: Logger, onNewKey: (key: string) => void): () => void {
  let queued = false;
  const reloadNow = () => {
    queued = false;
    try {
      const outcome = reloadGateway(configPath, gw);
      if (!outcome.applied) {
        logger.error({ findings: outcome.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) }, 'config reload refused; keeping the running config');
        return;
      }
      const runtime = gw.store.current();
      logger.level = runtime.config.server.log_level;
      if (outcome.restartNeeded.length > 0) logger.warn({ settings: outcome.restartNeeded }, 'config reloaded; these settings take effect only after a restart');
      logger.info({ models: runtime.models.size, routes: runtime.routes.length, warnings: outcome.diagnostics.length || undefined }, 'config reloaded');
      if (outcome.newGeneratedKey) onNewKey(outcome.newGeneratedKey);
    } catch (e) {
      logger.error({ err: { message: (e as Error)?.message } }, 'config reload failed; keeping the running config');
    }
  };
  const onHangup = () => {
    if (queued) return;
    queued = true;
    setImmediate(reloadNow);
  };
  process.on('SIGHUP', onHangup);
  return () => process.off('SIGHUP', onHangup);
}

/** Where `gateway serve` records its process id for `gateway reload`. */
export function pidFilePath(env: Env = process.env): string {
  return env.GATEWAY_PID_FILE || '.gateway/gateway.pid';
}

/**
 * `gateway reload`: checks the config with the server's own loader, then asks the running
 * gateway (pid from --pid or its pid file) to reload with SIGHUP. A config with errors is not
 * sent: the findings are printed and the exit code is 1. The server checks again itself (its
 * environment may differ) and logs the outcome.
 */
export function runReload(configPath: string, pidOption?: string): number {
  const { diagnostics } = compile(loadProject(configPath));
  for (const d of diagnostics) console.error(`${formatDiagnostic(d)}${d.severity === 'warning' ? ' (warning)' : ''}`);
  if (hasErrors(diagnostics)) {
    console.error(`gateway: ${configPath} has errors; not reloading (the running config keeps serving).`);
    return 1;
  }
  let pid = Number(pidOption);
  if (!pidOption) {
    const file = pidFilePath();
    try {
      pid = Number(readFileSync(file, 'utf8').trim());
    } catch {
      console.error(`gateway: no pid file at ${file}; pass --pid <pid> (or send SIGHUP to the gateway process yourself).`);
      return 1;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) {
    console.error('gateway: not a process id; pass --pid <pid>.');
    return 1;
  }
  try {
    process.kill(pid, 'SIGHUP');
  } catch (e) {
    console.error(`gateway: cannot signal process ${pid} (${(e as NodeJS.ErrnoException).code ?? 'error'}); is the gateway running?`);
    return 1;
  }
  console.log(`ok: asked gateway (pid ${pid}) to reload ${configPath}; the outcome is in its log.`);
  return 0;
}
