import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { applyDefaults } from './defaults.js';
import type { Diagnostic } from './diagnostics.js';
import { secretFileProblems, withFileSecrets, type Env } from './env.js';
import { checkAgainstMeta, metaSchema } from './meta-schema.js';
import type { GatewayConfig, RouteSpec } from './types.js';
import { readYamlSource, type YamlSource } from './yaml-source.js';

/** A config project: gateway.yaml plus its routes folder (`routes:` key, default routes/ beside it). */
export interface LoadedProject {
  configFile: string;
  config?: GatewayConfig;
  routes: RouteSpec[];
  /** Parsed sources by file, for locating cross-reference findings. */
  sources: Map<string, YamlSource>;
  diagnostics: Diagnostic[];
}

/**
 * Reads gateway.yaml and routes/*.yaml with positions, substitutes `${VAR}`, `${file:...}` and
 * `<VAR>_FILE` secrets (env.ts), checks both against
 * the published meta-schemas and fills defaults. Pure data: no Koa, no network. Server and lint
 * share this one loader.
 */
export function loadProject(configPath: string, givenEnv: Env = process.env): LoadedProject {
  const env = withFileSecrets(givenEnv);
  const configFile = resolve(configPath);
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, YamlSource>();
  const display = (f: string) => relative(process.cwd(), f) || f;

  const main = readYamlSource(display(configFile), env, diagnostics);
  sources.set(main.file, main);
  let config: GatewayConfig | undefined;
  if (main.data !== undefined) {
    if (typeof main.data !== 'object' || main.data === null || Array.isArray(main.data)) {
      diagnostics.push({ file: main.file, line: 1, col: 1, code: 'E_SCHEMA', severity: 'error', message: 'gateway.yaml must be a mapping' });
    } else {
      // Even when the meta-schema finds problems, the data goes on to the cross-checks so one
      // lint run reports every problem; compile never builds a runtime from it (errors exist).
      checkAgainstMeta(main, metaSchema('gateway'), diagnostics);
      config = applyDefaults(main.data as Record<string, unknown>);
    }
  }

  const routes: RouteSpec[] = [];
  // A config with YAML errors has no data: its routes are read from the document itself (only
  // then: a cached source parses its document on first use, yaml-source.ts).
  const routesSetting = main.data !== undefined ? (main.data as { routes?: unknown } | null)?.routes : main.doc.get('routes');
  const routesDir = resolve(dirname(configFile), typeof routesSetting === 'string' ? routesSetting : 'routes');
  let routeFiles: string[] = [];
  try {
    routeFiles = readdirSync(routesDir).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch {
    diagnostics.push({ file: main.file, line: 1, col: 1, code: 'E_NO_ROUTES', severity: 'error', message: `no routes/ folder beside the config (${display(routesDir)})` });
  }
  for (const name of routeFiles) {
    const src = readYamlSource(display(join(routesDir, name)), env, diagnostics);
    sources.set(src.file, src);
    if (src.data === undefined) continue;
    if (checkAgainstMeta(src, metaSchema('route'), diagnostics)) {
      const data = src.data as Omit<RouteSpec, 'file'>;
      routes.push(Object.freeze({ ...data, content_types: data.content_types ?? ['application/json'], file: src.file }));
    }
  }
  for (const message of secretFileProblems(env)) diagnostics.push({ file: main.file, line: 1, col: 1, code: 'W_SECRET_FILE', severity: 'warning', message });
  return { configFile, config, routes, sources, diagnostics };
}
