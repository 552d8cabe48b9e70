import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { metaSchema } from './meta-schema.js';
import { compileRequestSchema } from './request-schema.js';
import type { Diagnostic } from './diagnostics.js';
import { suggest } from './did-you-mean.js';
import type { LoadedProject } from './load-project.js';
import type { Vocabulary } from './vocabulary.js';
import { checkScaleOut } from './scale-checks.js';
import { checkCache } from './cache-checks.js';
import { checkProxyRoutes } from './proxy-checks.js';
import { checkBedrockModelIds } from './bedrock-checks.js';
import { checkCloudSettings } from './cloud-checks.js';
import { locate, type YamlSource } from './yaml-source.js';

/**
 * Checks that goes beyond one file's meta-schema: references between models, providers and
 * routes, duplicate ids, named behaviours that don't exist, route schemas that don't compile.
 */
export function crossCheck(project: LoadedProject, vocabulary: Vocabulary): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { config, routes } = project;
  const mainFile = [...project.sources.keys()][0]!;
  const main = project.sources.get(mainFile)!;
  const at = (src: YamlSource, path: Array<string | number>, code: string, message: string, key = false): void => {
    out.push({ file: src.file, ...locate(src, path, key), code, severity: 'error', message });
  };

  // Routes: duplicates, named behaviours, schemas that compile.
  const routeByPath = new Map<string, string>();
  const seenRoute = new Map<string, string>();
  for (const r of routes) {
    const src = project.sources.get(r.file)!;
    const sig = `${r.method} ${r.path}`;
    if (seenRoute.has(sig)) at(src, ['path'], 'E_DUPLICATE_ROUTE', `${sig} is already declared in ${seenRoute.get(sig)}`);
    seenRoute.set(sig, r.file);
    if (r.method === 'POST' || !routeByPath.has(specPath(r.path))) routeByPath.set(specPath(r.path), r.operation);
    if (!vocabulary.handlers.has(r.handler)) at(src, ['handler'], 'E_UNKNOWN_HANDLER', unknownName('handler', r.handler, vocabulary.handlers));
    if (r.surface !== undefined && !vocabulary.surfaces.has(r.surface)) at(src, ['surface'], 'E_UNKNOWN_SURFACE', unknownName('surface', r.surface, vocabulary.surfaces));
    for (const field of ['schema', 'multipart_schema'] as const) {
      const schema = r[field];
      if (!schema) continue;
      try {
        compileRequestSchema(schema, field === 'multipart_schema' ? 'form' : 'json');
      } catch (e) {
        at(src, [field], 'E_ROUTE_SCHEMA', `${field} does not compile: ${(e as Error).message}`);
      }
    }
  }
  if (!config) return out;
  out.push(...checkProxyRoutes(project));

  // Providers: known types, valid options.
  for (const [name, p] of Object.entries(config.providers)) {
    const info = vocabulary.providerTypes.get(p.type);
    if (!info) {
      at(main, ['providers', name, 'type'], 'E_UNKNOWN_TYPE', unknownName('provider type', p.type, vocabulary.providerTypes.keys()));
      continue;
    }
    if (info.optionsSchema && p.options) {
      const validate = compileRequestSchema(info.optionsSchema);
      if (!validate(p.options)) {
        for (const e of validate.errors ?? []) {
          const extra = (e.params as { additionalProperty?: string }).additionalProperty;
          const known = Object.keys((info.optionsSchema.properties as object | undefined) ?? {});
          const hint = extra ? suggest(extra, known) : undefined;
          at(main, ['providers', name, 'options', ...(extra ? [extra] : e.instancePath.split('/').slice(1))], extra ? 'E_UNKNOWN_KEY' : 'E_OPTIONS',
            extra ? `unknown option '${extra}' for provider type ${p.type}${hint ? `; did you mean '${hint}'?` : ''}` : `providers.${name}.options${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`, Boolean(extra));
        }
      }
    }
    if (p.operations && !info.mappedOperations) at(main, ['providers', name, 'operations'], 'E_OPERATIONS_NOT_SUPPORTED', `provider type ${p.type} does not take operation mappings`);
    else if (p.operations) checkMappings(name, p.operations);
  }
  out.push(...checkScaleOut(config, main));
  out.push(...checkCache(config, main));
  out.push(...checkCloudSettings(config, main, vocabulary));
  out.push(...checkBedrockModelIds(config, main));
  if (!config.providers[config.files.default_provider]) {
    at(main, ['files', 'default_provider'], 'E_UNKNOWN_PROVIDER', unknownName('provider', config.files.default_provider, Object.keys(config.providers)));
  }

  // Operation mappings: known operation names, schemas/mapping.schema.json, named transports.
  function checkMappings(provider: string, operations: Record<string, Record<string, unknown>>): void {
    const known = new Set(routes.map((r) => r.operation));
    const validate = mappingSchema();
    for (const [operation, mapping] of Object.entries(operations)) {
      const base = ['providers', provider, 'operations', operation];
      if (!known.has(operation)) at(main, base, 'E_UNKNOWN_OPERATION', unknownName('operation', operation, known), true);
      if (!validate(mapping)) {
        for (const e of pruneMappingErrors(validate.errors ?? [])) {
          const finding = describeMappingError(e);
          at(main, [...base, ...finding.path], finding.code, `${[...base, ...finding.path].join('.')}: ${finding.message}`, finding.key);
        }
      }
      const transport = mapping?.transport;
      if (typeof transport === 'string' && !vocabulary.transports.has(transport)) {
        at(main, [...base, 'transport'], 'E_UNKNOWN_TRANSPORT', unknownName('transport', transport, vocabulary.transports));
      }
    }
  }

  // Models: ids, providers, endpoints, operations the provider really has.
  const seenIds = new Map<string, number>();
  config.models.forEach((m, i) => {
    const path = ['models', i];
    if (seenIds.has(m.id)) at(main, [...path, 'id'], 'E_DUPLICATE_ID', `model id '${m.id}' is already used by models[${seenIds.get(m.id)}]`);
    seenIds.set(m.id, i);
    // A `pricing:` that resolves to nothing (an empty mapping, an empty alias) would make the
    // model free without a word: say so.
    if ('pricing' in m && (m.pricing === undefined || (typeof m.pricing === 'object' && m.pricing !== null && Object.keys(m.pricing).length === 0))) {
      at(main, [...path, 'pricing'], 'E_EMPTY_PRICING', `models[${i}].pricing has no prices, so '${m.id}' would be free; give at least one price or remove the key`);
    }
    if (m.route) return;
    const provider = config.providers[m.provider];
    if (!provider) {
      at(main, [...path, 'provider'], 'E_UNKNOWN_PROVIDER', unknownName('provider', m.provider, Object.keys(config.providers)));
      return;
    }
    if (m.id.split('/')[0] !== m.provider) at(main, [...path, 'id'], 'E_MODEL_ID', `model id '${m.id}' must start with its provider '${m.provider}/'`);
    const info = vocabulary.providerTypes.get(provider.type);
    m.endpoints.forEach((endpoint, j) => {
      const operation = routeByPath.get(endpoint);
      if (operation === undefined) {
        at(main, [...path, 'endpoints', j], 'E_UNKNOWN_ENDPOINT', unknownName('endpoint', endpoint, routeByPath.keys(), 'no route declares'));
        return;
      }
      if (!info) return;
      const route = routes.find((r) => r.operation === operation && r.method === 'POST');
      const served = route?.surface ? info.text : info.operations.has(operation) || Boolean(provider.operations?.[operation]);
      if (!served) at(main, [...path, 'endpoints', j], 'E_PROVIDER_LACKS_OPERATION', `provider '${m.provider}' (type ${provider.type}) has no '${operation}' operation for ${endpoint}`);
    });
  });
  out.push(...checkRouting(config, main));
  return out;
}

/**
 * Routing references: fallbacks and router targets name catalog models (routers never route
 * to routers, a model never falls back to itself); a provider's upstream names are unique.
 */
function checkRouting(config: NonNullable<LoadedProject['config']>, main: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: Array<string | number>, code: string, message: string): void => {
    out.push({ file: main.file, ...locate(main, path), code, severity: 'error', message });
  };
  const ids = config.models.map((m) => m.id);
  const routers = new Set(config.models.filter((m) => m.route).map((m) => m.id));
  const checkRef = (id: string, self: string, path: Array<string | number>, what: string): void => {
    if (id === self) at(path, 'E_ROUTING_SELF', `${what} '${id}' is the model itself`);
    else if (!ids.includes(id)) at(path, 'E_UNKNOWN_MODEL', unknownName(`${what} model`, id, ids));
    else if (routers.has(id)) at(path, 'E_ROUTER_TARGET', `${what} '${id}' is a router model; name the models it routes to`);
  };
  const byId = new Map(config.models.map((m) => [m.id, m]));
  config.models.forEach((m, i) => {
    (m.fallbacks ?? []).forEach((f, j) => {
      checkRef(f, m.id, ['models', i, 'fallbacks', j], 'fallback');
      const target = byId.get(f);
      if (target?.endpoints && m.endpoints && !m.endpoints.some((e) => target.endpoints.includes(e))) {
        at(['models', i, 'fallbacks', j], 'E_FALLBACK_ENDPOINTS', `fallback '${f}' serves none of ${m.id}'s endpoints (${m.endpoints.join(', ')})`);
      }
    });
    if (m.route) {
      const targets = m.route.targets.map((t) => byId.get(typeof t === 'string' ? t : t.model)).filter((t) => t?.endpoints !== undefined);
      if (targets.length > 1 && !targets[0]!.endpoints.some((e) => targets.every((t) => t!.endpoints.includes(e)))) {
        at(['models', i, 'route', 'targets'], 'E_ROUTER_ENDPOINTS', `the targets of router model '${m.id}' share no endpoint, so it could serve nothing`);
      }
    }
    (m.route?.targets ?? []).forEach((t, j) => {
      if (typeof t === 'string') checkRef(t, m.id, ['models', i, 'route', 'targets', j], 'route target');
      else checkRef(t.model, m.id, ['models', i, 'route', 'targets', j, 'model'], 'route target');
    });
  });
  for (const [name, p] of Object.entries(config.providers)) {
    const seen = new Set<string>();
    (p.upstreams ?? []).forEach((u, j) => {
      if (seen.has(u.name)) at(['providers', name, 'upstreams', j, 'name'], 'E_DUPLICATE_UPSTREAM', `upstream '${u.name}' is already declared for provider '${name}'`);
      seen.add(u.name);
    });
  }
  return out;
}

/** `/v1/models/:provider/:model` -> `/v1/models/{provider}/{model}` (SPEC spelling). */
export function specPath(routerPath: string): string {
  return routerPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function unknownName(kind: string, name: string, known: Iterable<string>, lead = 'unknown'): string {
  const list = [...known];
  const hint = suggest(name, list);
  return `${lead} ${kind} '${name}'${hint ? `; did you mean '${hint}'?` : list.length <= 12 ? `; known: ${list.join(', ')}` : ''}`;
}

/** schemas/mapping.schema.json, loaded once per process. */
function mappingSchema(): ValidateFunction {
  return metaSchema('mapping');
}

/** Drops the wrappers ajv reports around a real finding (if/anyOf), and duplicates. */
function pruneMappingErrors(errs: ErrorObject[]): ErrorObject[] {
  const meaningful = errs.filter((e) => !['if', 'anyOf', 'oneOf', '$ref'].includes(e.keyword));
  const list = meaningful.length > 0 ? meaningful : errs;
  const seen = new Set<string>();
  return list.filter((e) => {
    const sig = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(sig)) return false;
    seen.add(sig);
    return true;
  });
}

/** A mapping schema error as a finding below the mapping. */
function describeMappingError(e: ErrorObject): { path: Array<string | number>; code: string; message: string; key: boolean } {
  const path: Array<string | number> = e.instancePath.split('/').slice(1).map((seg) => {
    const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^\d+$/.test(s) ? Number(s) : s;
  });
  if (e.keyword === 'additionalProperties') {
    const extra = String((e.params as { additionalProperty: string }).additionalProperty);
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const hint = suggest(extra, known);
    return { path: [...path, extra], code: 'E_UNKNOWN_KEY', message: `unknown key '${extra}'${hint ? `; did you mean '${hint}'?` : `; allowed: ${known.join(', ')}`}`, key: true };
  }
  if (e.keyword === 'required') return { path, code: 'E_MISSING_KEY', message: `missing required key '${String((e.params as { missingProperty: string }).missingProperty)}'`, key: false };
  if (e.keyword === 'pattern' && /\$\(item/.test(String((e.params as { pattern?: string }).pattern))) {
    return { path, code: 'E_SCHEMA', message: `'${String(e.data)}' is not a path: dot-separated names, numbers or *, optionally starting with $item, $index, $request or $bytes`, key: false };
  }
  if (e.keyword === 'enum') return { path, code: 'E_SCHEMA', message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`, key: false };
  return { path, code: 'E_SCHEMA', message: e.message ?? 'is invalid', key: false };
}
