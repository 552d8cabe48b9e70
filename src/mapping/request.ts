import { upstreamNameOf } from '../config/model-name.js';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { joinUrl } from '../upstream/join-url.js';
import { atPath, MappingCompileError } from './compile-error.js';
import { compileTemplate, type CompiledTemplate } from './template.js';
import type { AuthSpec, OperationMapping } from './types.js';
import { compileFields, compileValue, createSpecContext, templateScope, type Evaluator, type Scope } from './value-spec.js';

/** Client fields that never reach a provider: the gateway acts on them itself. */
const GATEWAY_ONLY = ['model', 'max_budget_usd'];

/** The provider type's own auth headers (a dialect's), used when a mapping names no `auth`. */
export type DefaultAuth = (apiKey: string, options: Readonly<Record<string, unknown>>) => Record<string, string>;

/** An upstream request ready to send (body still a value; the transport encodes it). */
export interface BuiltRequest {
  url: string;
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: Record<string, unknown>;
}

/** Builds the upstream request of one call. */
export interface RequestBuilder {
  build(call: OperationCall, extraVars?: Record<string, string | undefined>): Promise<BuiltRequest>;
  /** Builds only the URL and auth headers for a path template (job polls, downloads, relays). */
  locate(call: OperationCall, path: CompiledTemplate, vars: Record<string, string | undefined>, scopeRoot?: unknown): { url: string; headers: Record<string, string> };
  /** The auth headers (and query) for one call. */
  auth(call: OperationCall): { headers: Record<string, string>; query: Record<string, string> };
}

/**
 * Template variables every mapping knows: the canonical id, the provider's model name, unix
 * seconds now, and where a cloud deployment lives (`project`, `location`, `region`).
 */
export const BASE_VARIABLES: readonly string[] = ['model', 'upstream_model', 'now', 'project', 'location', 'region'];

/** The variables templates know in one call. */
export function requestVariables(call: OperationCall, upstreamModel: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const place = call.access?.place;
  return {
    model: call.model.id,
    upstream_model: upstreamModel,
    now: String(Math.floor(Date.now() / 1000)),
    project: place?.project ?? call.provider.project,
    location: place?.location ?? call.provider.location,
    region: place?.region ?? call.provider.region,
    ...extra,
  };
}

/** The scope of a request-side value: the client body. */
export function requestScope(call: OperationCall, vars: Record<string, string | undefined>): Scope {
  return { root: call.body, request: call.body, vars, call };
}

/**
 * Compiles the request side of a mapping: path, query, headers, auth and body. `reserved`
 * names client fields a transport consumes itself (never forwarded by passthrough).
 */
export function compileRequest(mapping: OperationMapping, at: ReadonlyArray<string | number>, options: { defaultAuth?: DefaultAuth; variables?: string[]; reserved?: string[] }): RequestBuilder {
  const variables = [...BASE_VARIABLES, ...(options.variables ?? [])];
  const ctx = createSpecContext(variables, true);
  const path = atPath([...at, 'path'], () => compileTemplate(mapping.path, new Set(variables)));
  for (const f of path.fields) ctx.fields.add(f);
  const query = Object.entries(mapping.query ?? {}).map(([name, spec]) => ({ name, value: compileValue(spec, [...at, 'query', name], ctx) }));
  const headers = Object.entries(mapping.headers ?? {}).map(([name, spec]) => ({ name: name.toLowerCase(), value: compileValue(spec, [...at, 'headers', name], ctx) }));
  const request = mapping.request ?? {};
  const body = request.body ? compileFields(request.body, [...at, 'request', 'body'], ctx) : undefined;
  const excluded = new Set([...GATEWAY_ONLY, ...(request.drop ?? []), ...(options.reserved ?? []), ...ctx.fields]);
  const auth = compileAuth(mapping.auth, [...at, 'auth'], options.defaultAuth);
  const method = mapping.method ?? 'POST';

  const locate: RequestBuilder['locate'] = (call, template, vars, scopeRoot) => {
    if (!call.baseUrl) throw errors.providerNotConfigured(call.providerName, `${call.providerName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`);
    const scope: Scope = { ...requestScope(call, vars), root: scopeRoot ?? call.body };
    const rendered = template.render(templateScope(scope), encodePathValue);
    if (rendered === undefined) throw missingPathField(template, call);
    const credentials = auth(call);
    const url = new URL(/^https?:\/\//i.test(rendered) ? rendered : joinUrl(call.baseUrl, rendered));
    for (const [k, v] of Object.entries(credentials.query)) url.searchParams.set(k, v);
    return { url: url.toString(), headers: { ...(call.provider.headers ?? {}), ...credentials.headers } };
  };

  return {
    auth,
    locate,
    async build(call, extraVars = {}) {
      const vars = requestVariables(call, upstreamOf(call), extraVars);
      const scope = requestScope(call, vars);
      const where = locate(call, path, vars);
      const url = new URL(where.url);
      for (const q of query) {
        const v = await q.value(scope);
        if (v !== undefined && v !== null) url.searchParams.set(q.name, typeof v === 'object' ? JSON.stringify(v) : String(v));
      }
      const out: Record<string, string> = { ...where.headers };
      for (const h of headers) {
        const v = await h.value(scope);
        if (v !== undefined && v !== null) out[h.name] = String(v);
      }
      let payload: Record<string, unknown> | undefined;
      if (request.passthrough) payload = Object.fromEntries(Object.entries(call.body).filter(([k, v]) => !excluded.has(k) && v !== undefined));
      if (body) payload = await body(scope, payload ?? {});
      return { url: url.toString(), method, headers: out, body: payload };
    },
  };
}

/** The provider's own model name of a call. */
export function upstreamOf(call: OperationCall): string {
  return upstreamNameOf(call.model);
}

function compileAuth(spec: AuthSpec | undefined, at: ReadonlyArray<string | number>, fallback?: DefaultAuth): RequestBuilder['auth'] {
  const none = { headers: {}, query: {} };
  if (spec === 'none') return () => none;
  if (spec === undefined && fallback) return (call) => ({ headers: fallback(call.apiKey ?? '', call.provider.options ?? {}), query: {} });
  if (spec === undefined || spec === 'bearer') return (call) => (call.apiKey ? { headers: { authorization: `Bearer ${call.apiKey}` }, query: {} } : none);
  if ('header' in spec) {
    const name = spec.header.toLowerCase();
    const prefix = spec.prefix ?? '';
    return (call) => (call.apiKey ? { headers: { [name]: `${prefix}${call.apiKey}` }, query: {} } : none);
  }
  if ('query' in spec) return (call) => (call.apiKey ? { headers: {}, query: { [spec.query]: call.apiKey } } : none);
  throw new MappingCompileError(at, 'auth is none, bearer, {header, prefix?} or {query}');
}

/** Escapes a path value but keeps `/` and `:` (Google operation names are paths). */
function encodePathValue(value: string): string {
  return encodeURIComponent(value).replace(/%2F/gi, '/').replace(/%3A/gi, ':');
}

function missingPathField(template: CompiledTemplate, call: OperationCall): Error {
  const field = template.fields[0] ?? 'a path field';
  return errors.invalidRequest(`'${field}' is required by model '${call.model.id}'.`, 'missing_field', { field });
}

