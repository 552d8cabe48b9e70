import { parsePricing } from '../billing/pricing.js';
import { upstreamNameOf } from '../config/model-name.js';
import { crossCheck } from '../config/cross-check.js';
import { compileOnFirstUse } from '../config/request-schema.js';
import { hasErrors, type Diagnostic } from '../config/diagnostics.js';
import { secretFileProblems, withFileSecrets, type Env } from '../config/env.js';
import type { LoadedProject } from '../config/load-project.js';
import type { GatewayConfig, RouteSpec } from '../config/types.js';
import { buildCard, cacheBody, operationsOf } from './catalog.js';
import { buildAdminKeyRing, buildKeyRing, createKeyLookup } from './keys.js';
import { compileRouterModel } from './router-model.js';
import { resolveUpstreams } from './upstreams.js';
import { compileProxyPlan, ProxyPlanError } from './proxy-plan.js';
import { resolveDeployment } from '../providers/access.js';
import { resolvePolicy } from '../routing/policy.js';
import { MappingCompileError, MappingCompileErrors } from '../mapping/compile-mapping.js';
import { locate } from '../config/yaml-source.js';
import { implementationFor, providerTypeInfo, surfaces, vocabulary } from './registry.js';
import { routeKey, type CompiledRoute, type ModelEntry, type ResolvedProvider, type Runtime } from './runtime.js';
import { rememberSecrets } from '../errors/redact.js';
import { readMetaSchema } from '../config/meta-schema-compiler.js';
import { buildResultKey, passedBefore, rememberPass } from '../config/remembered-checks.js';

/** Options of a compile: what a reload carries over from the runtime it replaces. */
export interface CompileOptions {
  /** The key generated for this process when none was configured; kept while none is. */
  generatedKey?: string;
}

/** Turns a loaded project into a frozen Runtime; no runtime when any error is found. */
export function compile(project: LoadedProject, givenEnv: Env = process.env, options: CompileOptions = {}): { runtime?: Runtime; diagnostics: Diagnostic[] } {
  // Provider keys and gateway keys may come from `<VAR>_FILE` files too.
  const env = withFileSecrets(givenEnv);
  const diagnostics = [...project.diagnostics, ...rememberedCrossCheck(project)];
  if (hasErrors(diagnostics) || !project.config) return { diagnostics };
  const config = project.config;
  const routes = compileRoutes(project.routes, new Set(config.models.flatMap((m) => m.parameters ?? [])));
  const mappingProblems: MappingCompileError[] = [];
  const providers = resolveProviders(config, env, mappingProblems);
  if (mappingProblems.length > 0) {
    const main = project.sources.get([...project.sources.keys()][0]!)!;
    return {
      diagnostics: [...diagnostics, ...mappingProblems.map((p): Diagnostic => ({ file: main.file, ...locate(main, p.path), code: 'E_MAPPING', severity: 'error', message: `${p.path.join('.')}: ${p.message}` }))],
    };
  }
  const proxyProblems = compileProxyPlans(routes, providers, config);
  if (proxyProblems.length > 0) {
    return {
      diagnostics: [...diagnostics, ...proxyProblems.map(({ route, message }): Diagnostic => {
        const src = project.sources.get(route.file);
        return { file: route.file, ...(src ? locate(src, ['proxy']) : { line: 1, col: 1 }), code: 'E_PROXY', severity: 'error', message };
      })],
    };
  }
  const models = new Map<string, ModelEntry>();
  for (const spec of config.models) {
    if (spec.route) continue;
    const operations = operationsOf(spec, project.routes);
    const provider = providers.get(spec.provider)!;
    models.set(spec.id, Object.freeze({
      spec,
      provider,
      upstream: upstreamNameOf(spec),
      operations: new Set(operations),
      parameters: new Set(spec.parameters ?? []),
      card: Object.freeze(buildCard(spec, operations)),
      pricing: parsePricing(spec.pricing),
      policy: resolvePolicy([config.routing, provider.spec.routing, spec.routing], provider.spec.timeout_ms ?? config.server.upstream_timeout_ms),
      fallbacks: Object.freeze([...(spec.fallbacks ?? [])]),
      hedgeAfterMs: spec.hedge_after_ms,
    }));
  }
  for (const spec of config.models) if (spec.route) models.set(spec.id, compileRouterModel(spec, models, config));
  const visible = [...models.values()].filter((m) => !m.spec.hidden && !m.provider.missing);
  const { keys, generatedKey } = buildKeyRing(config, env, options.generatedKey);
  const mainFile = [...project.sources.keys()][0] ?? project.configFile;
  for (const message of secretFileProblems(env)) diagnostics.push({ file: mainFile, line: 1, col: 1, code: 'W_SECRET_FILE', severity: 'warning', message });
  const runtime: Runtime = Object.freeze({
    config,
    routes,
    routesByKey: new Map(routes.map((r) => [routeKey(r.spec), r])),
    models,
    providers,
    modelList: cacheBody({ object: 'list', data: visible.map((m) => m.card) }),
    keys,
    findKey: createKeyLookup(keys),
    findAdminKey: createKeyLookup(buildAdminKeyRing(config, env)),
    generatedKey,
    fileCredentials: resolveFileCredentials(config, env),
  });
  return { runtime, diagnostics };
}

/**
 * Compiles the plan of each pass-through route in place (routes are built just before);
 * returns the routes that cannot be served (unknown provider, an auth type without credentials).
 */
function compileProxyPlans(routes: CompiledRoute[], providers: ReadonlyMap<string, ResolvedProvider>, config: GatewayConfig): Array<{ route: RouteSpec; message: string }> {
  const problems: Array<{ route: RouteSpec; message: string }> = [];
  routes.forEach((route, i) => {
    if (!route.spec.proxy) return;
    try {
      routes[i] = Object.freeze({ ...route, proxy: compileProxyPlan(route.spec, providers, config) });
    } catch (e) {
      if (!(e instanceof ProxyPlanError)) throw e;
      if (!problems.some((p) => p.route.file === route.spec.file)) problems.push({ route: route.spec, message: e.message });
    }
  });
  return problems;
}

function compileRoutes(specs: readonly RouteSpec[], parameterVocabulary: ReadonlySet<string>): CompiledRoute[] {
  return specs.map((spec) => compileRoute(spec, parameterVocabulary));
}

function compileRoute(spec: RouteSpec, parameterVocabulary: ReadonlySet<string>): CompiledRoute {
  const payloadFields = payloadFieldsOf(spec);
  return Object.freeze({
    spec,
    validate: spec.schema ? compileOnFirstUse(spec.schema) : undefined,
    validateMultipart: spec.multipart_schema ? compileOnFirstUse(spec.multipart_schema, 'form') : undefined,
    surface: spec.surface ? surfaces.get(spec.surface) : undefined,
    payloadFields,
    tunableParameters: new Set([...parameterVocabulary, ...(spec.parameters ?? [])].filter((p) => !payloadFields.has(p))),
  });
}

function resolveProviders(config: GatewayConfig, env: Env, problems: MappingCompileError[]): Map<string, ResolvedProvider> {
  const info = providerTypeInfo();
  const out = new Map<string, ResolvedProvider>();
  const secrets: Array<string | undefined> = [];
  for (const [name, spec] of Object.entries(config.providers)) {
    const needsKey = info.get(spec.type)?.needsKey ?? true;
    let impl;
    try {
      impl = implementationFor(name, spec)!;
    } catch (e) {
      if (e instanceof MappingCompileErrors) problems.push(...e.errors);
      else if (e instanceof MappingCompileError) problems.push(e);
      else throw e;
      continue;
    }
    const resolved = resolveUpstreams(name, spec, env, needsKey);
    const own = resolved.upstreams[0] ?? resolveDeployment(name, spec, undefined, env, needsKey);
    secrets.push(...resolved.secrets);
    out.set(name, Object.freeze({
      name,
      spec,
      impl,
      apiKey: own.apiKey,
      baseUrl: own.baseUrl,
      access: own.access,
      missing: resolved.missing,
      upstreams: resolved.upstreams,
    }));
  }
  // Redacted by exact value wherever an upstream echoes one (src/errors/redact.ts); added in one
  // call, so the redaction pattern is rebuilt once per compile, not once per provider.
  rememberSecrets(secrets);
  return out;
}

/** Fields of a route that are the request's payload rather than tunable parameters. */
function payloadFieldsOf(spec: RouteSpec): Set<string> {
  const fields = new Set<string>(['model', 'stream_options']);
  if (spec.stream_field) fields.add(spec.stream_field);
  for (const f of spec.payload_fields ?? []) fields.add(f);
  const walk = (schema: unknown): void => {
    if (!schema || typeof schema !== 'object') return;
    const s = schema as { required?: unknown; anyOf?: unknown; oneOf?: unknown; allOf?: unknown };
    if (Array.isArray(s.required)) for (const r of s.required) fields.add(String(r));
    for (const group of [s.anyOf, s.oneOf, s.allOf]) if (Array.isArray(group)) group.forEach(walk);
  };
  walk(spec.schema);
  return fields;
}

/**
 * The cross-checks, skipped when this build found nothing in the same config and routes before
 * (remembered-checks.ts): they read nothing else (the vocabulary is code, the mapping
 * meta-schema is in the key).
 */
function rememberedCrossCheck(project: LoadedProject): Diagnostic[] {
  const key = buildResultKey('cross-check', readMetaSchema('mapping').hash, JSON.stringify(project.config ?? null), JSON.stringify(project.routes));
  if (passedBefore(key)) return [];
  const found = safeCrossCheck(project);
  if (found.length === 0 && !hasErrors(project.diagnostics)) rememberPass(key);
  return found;
}

/**
 * Cross-checks even a config the meta-schema found problems in (so lint reports everything at
 * once); data of the wrong shape can then trip a check, which adds nothing beyond the
 * meta-schema findings already reported.
 */
function safeCrossCheck(project: LoadedProject): Diagnostic[] {
  try {
    return crossCheck(project, vocabulary());
  } catch (e) {
    if (hasErrors(project.diagnostics)) return [];
    throw e;
  }
}

/** Object storage credentials from the variables `files.s3` names (AWS_* by default); both or none. */
function resolveFileCredentials(config: GatewayConfig, env: Env): Runtime['fileCredentials'] {
  if (config.files.store !== 's3') return undefined;
  const accessKeyId = env[config.files.s3?.access_key_env ?? 'AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env[config.files.s3?.secret_key_env ?? 'AWS_SECRET_ACCESS_KEY'];
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined;
}
