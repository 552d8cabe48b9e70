import { compile } from '../compile/compile.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import { loadProject } from '../config/load-project.js';

/** `gateway models`: every model with its provider and status (enabled, or what is missing). */
export function runModels(configPath: string, format: 'text' | 'json'): number {
  const { runtime, diagnostics } = compile(loadProject(configPath));
  if (!runtime) {
    for (const d of diagnostics) console.error(formatDiagnostic(d));
    return 1;
  }
  const rows = [...runtime.models.values()].map((m) => ({
    id: m.spec.id,
    provider: m.provider.name,
    status: m.provider.missing ? `disabled (set ${m.provider.missing})` : m.spec.hidden ? 'enabled (hidden)' : 'enabled',
    endpoints: m.spec.endpoints,
  }));
  if (format === 'json') {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.id.length), 5);
  console.log(`${'MODEL'.padEnd(width)}  ${'PROVIDER'.padEnd(12)}  STATUS`);
  for (const r of rows) console.log(`${r.id.padEnd(width)}  ${r.provider.padEnd(12)}  ${r.status}`);
  return 0;
}
