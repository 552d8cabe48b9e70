import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Diagnostic } from './diagnostics.js';
import { suggest } from './did-you-mean.js';
import type { LoadedProject } from './load-project.js';
import type { Vocabulary } from './vocabulary.js';
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
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
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
        ajv.compile(schema);
      } catch (e) {
        at(src, [field], 'E_ROUTE_SCHEMA', `${field} does not compile: ${(e as Error).message}`);
      }
    }
  }
  if (!config) return out;

  // Providers: known types, valid options.
  for (const [name, p] of Object.entries(config.providers)) {
    const info = vocabulary.providerTypes.get(p.type);
    if (!info) {
      at(main, ['providers', name, 'type'], 'E_UNKNOWN_TYPE', unknownName('provider type', p.type, vocabulary.providerTypes.keys()));
      continue;
    }
    if (info.optionsSchema && p.options) {
      const validate = ajv.compile(info.optionsSchema);
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
  }
  if (!config.providers[config.files.default_provider]) {
    at(main, ['files', 'default_provider'], 'E_UNKNOWN_PROVIDER', unknownName('provider', config.files.default_provider, Object.keys(config.providers)));
  }

  // Models: ids, providers, endpoints, operations the provider really has.
  const seenIds = new Map<string, number>();
  config.models.forEach((m, i) => {
    const path = ['models', i];
    if (seenIds.has(m.id)) at(main, [...path, 'id'], 'E_DUPLICATE_ID', `model id '${m.id}' is already used by models[${seenIds.get(m.id)}]`);
    seenIds.set(m.id, i);
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
