import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { applyDefaults } from './defaults.js';
import type { Diagnostic } from './diagnostics.js';
import { secretFileProblems, withFileSecrets, type Env } from './env.js';
import { checkAgainstMeta, metaSchema } from './meta-schema.js';
import { readMetaSchema } from './meta-schema-compiler.js';
import { buildResultKey, passedBefore, rememberPass } from './remembered-checks.js';
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
  // A config with YAML errors has no data: its routes are read from the document itself (only
  // then: a cached source parses its document on first use, yaml-source.ts).
  const routesSetting = main.data !== undefined ? (main.data as { routes?: unknown } | null)?.routes : main.doc.get('routes');
  const routesDir = resolve(dirname(configFile), typeof routesSetting === 'string' ? routesSetting : 'routes');
  let routeFiles: string[] | undefined;
  try {
    routeFiles = readdirSync(routesDir).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch {
    routeFiles = undefined;
  }
  // Every file is read before any is checked: the meta-schema checks are skipped when this
  // build passed the very same data before (remembered-checks.ts). Findings keep their order:
  // each file's reading findings, then its schema findings.
  const routeSources = (routeFiles ?? []).map((name) => {
    const found: Diagnostic[] = [];
    return { source: readYamlSource(display(join(routesDir, name)), env, found), found };
  });
  const readCleanly = diagnostics.length === 0 && routeSources.every((r) => r.found.length === 0 && r.source.data !== undefined);
  const checkKey = readCleanly && main.data !== undefined ? metaCheckKey(main, routeSources.map((r) => r.source)) : undefined;
  const known = passedBefore(checkKey);
  const substitutedBefore = substitutedCount(main, routeSources);

  let config: GatewayConfig | undefined;
  if (main.data !== undefined) {
    if (typeof main.data !== 'object' || main.data === null || Array.isArray(main.data)) {
      diagnostics.push({ file: main.file, line: 1, col: 1, code: 'E_SCHEMA', severity: 'error', message: 'gateway.yaml must be a mapping' });
    } else {
      // Even when the meta-schema finds problems, the data goes on to the cross-checks so one
      // lint run reports every problem; compile never builds a runtime from it (errors exist).
      if (!known) checkAgainstMeta(main, metaSchema('gateway'), diagnostics);
      config = applyDefaults(main.data as Record<string, unknown>);
    }
  }

  const routes: RouteSpec[] = [];
  if (routeFiles === undefined) {
    diagnostics.push({ file: main.file, line: 1, col: 1, code: 'E_NO_ROUTES', severity: 'error', message: `no routes/ folder beside the config (${display(routesDir)})` });
  }
  for (const { source: src, found } of routeSources) {
    sources.set(src.file, src);
    diagnostics.push(...found);
    if (src.data === undefined) continue;
    if (known || checkAgainstMeta(src, metaSchema('route'), diagnostics)) {
      routes.push(...routeSpecsOf(src.data as RouteData, src.file));
    }
  }
  // A pass that had to put substituted text back (checkAgainstMeta) changed the data: it is
  // checked again next time, so the same change is made again.
  if (!known && diagnostics.length === 0 && substitutedCount(main, routeSources) === substitutedBefore) rememberPass(checkKey);
  for (const message of secretFileProblems(env)) diagnostics.push({ file: main.file, line: 1, col: 1, code: 'W_SECRET_FILE', severity: 'warning', message });
  return { configFile, config, routes, sources, diagnostics };
}

/** What a meta-schema check's verdict depends on: both meta-schemas and every file's data. */
function metaCheckKey(main: YamlSource, routes: readonly YamlSource[]): string | undefined {
  return buildResultKey('meta-check', readMetaSchema('gateway').hash, readMetaSchema('route').hash, JSON.stringify(main.data), ...routes.map((r) => JSON.stringify(r.data)));
}

function substitutedCount(main: YamlSource, routes: ReadonlyArray<{ source: YamlSource }>): number {
  return routes.reduce((n, r) => n + r.source.substituted.size, main.substituted.size);
}

/** A route file as written: `method` may list several methods; `handler` defaults on pass-through routes. */
type RouteData = Omit<RouteSpec, 'file' | 'method' | 'handler'> & { method: RouteSpec['method'] | RouteSpec['method'][]; handler?: string };

/**
 * The routes of one file: one per method (a pass-through route may list several, and every
 * later stage keys routes by one method and path). `operation: proxy` routes get the handler
 * `proxy`; they read no body (any content type streams through).
 */
function routeSpecsOf(data: RouteData, file: string): RouteSpec[] {
  const methods = Array.isArray(data.method) ? data.method : [data.method];
  const proxy = data.operation === 'proxy';
  return methods.map((method) => Object.freeze({
    ...data,
    method,
    handler: data.handler ?? (proxy ? 'proxy' : ''),
    content_types: data.content_types ?? (proxy ? [] : ['application/json']),
    file,
  }));
}
