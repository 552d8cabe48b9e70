import type { Logger } from 'pino';
import { compile } from '../compile/compile.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { formatDiagnostic, hasErrors } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';

/**
 * Re-reads the config on SIGHUP and swaps it in only when it compiles with zero errors; a bad
 * edit is logged and the running config keeps serving. Models, providers, keys and limits
 * reload; adding or removing route files needs a restart.
 */
export function reloadOnHangup(configPath: string, store: RuntimeStore, logger: Logger): void {
  process.on('SIGHUP', () => {
    const { runtime, diagnostics } = compile(loadProject(configPath));
    if (!runtime || hasErrors(diagnostics)) {
      logger.error({ findings: diagnostics.map(formatDiagnostic) }, 'config reload refused; keeping the running config');
      return;
    }
    store.swap(runtime);
    logger.info({ models: runtime.models.size }, 'config reloaded');
  });
}
