import { compile } from '../compile/compile.js';
import { formatDiagnostic, hasErrors } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';

/** `gateway lint [file]`: every problem as `file:line:col code message`; exit 1 on errors. */
export function runLint(configPath: string, format: 'text' | 'json'): number {
  const { diagnostics } = compile(loadProject(configPath));
  const sorted = [...diagnostics].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col);
  if (format === 'json') {
    console.log(JSON.stringify({ ok: !hasErrors(sorted), diagnostics: sorted }, null, 2));
  } else {
    for (const d of sorted) console.log(`${formatDiagnostic(d)}${d.severity === 'warning' ? ' (warning)' : ''}`);
    const errorCount = sorted.filter((d) => d.severity === 'error').length;
    console.log(errorCount === 0 ? `ok: ${configPath} is valid${sorted.length ? ` (${sorted.length} warning${sorted.length > 1 ? 's' : ''})` : ''}` : `${errorCount} error${errorCount > 1 ? 's' : ''}`);
  }
  return hasErrors(sorted) ? 1 : 0;
}
