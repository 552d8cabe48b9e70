import type { CompiledRoute, ModelEntry } from '../compile/runtime.js';
import { listsCapability } from '../codecs/shared/parameter-spellings.js';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import type { UpstreamRef } from '../routing/targets.js';
import type { AttemptTrace } from '../upstream/call-upstream.js';
import type { CallSignal } from '../upstream/request-abort.js';
import type { GatewayState } from './state.js';

/** Finds the model a body names and checks it can serve the route's operation. */
export function resolveModel(gw: GatewayState): ModelEntry {
  const id = gw.body.model;
  const entry = typeof id === 'string' ? gw.runtime.models.get(id) : undefined;
  if (!entry) throw errors.unknownModel(String(id));
  if (!entry.operations.has(gw.route.spec.operation)) throw errors.unsupportedOperation(entry.spec.id, gw.route.spec.path);
  if (entry.provider.missing) throw errors.providerNotConfigured(entry.provider.name, entry.provider.missing);
  return entry;
}

// Fields the gateway itself acts on; a provider never sees them.
const GATEWAY_FIELDS = new Set(['max_budget_usd', 'models']);

/**
 * Splits off the tunable parameters the model does not accept (see
 * CompiledRoute.tunableParameters). Payload and unknown fields are always kept; a model that
 * lists no parameters accepts all. A field is kept when the model lists its capability under any
 * spelling (responses `text` == chat `response_format`, see codecs/shared/parameter-spellings.ts).
 */
export function dropUnsupported(body: Record<string, unknown>, entry: ModelEntry, route: CompiledRoute): { body: Record<string, unknown>; dropped: readonly string[] } {
  if (entry.parameters.size === 0) return { body, dropped: NOTHING_DROPPED };
  const keeps = (k: string) => !route.tunableParameters.has(k) || listsCapability(entry.parameters, k) || GATEWAY_FIELDS.has(k);
  // Most requests drop nothing: checked first, so the body is copied only when something goes.
  let any = false;
  for (const k in body) if (!keeps(k)) { any = true; break; }
  if (!any) return { body, dropped: NOTHING_DROPPED };
  const dropped: string[] = [];
  const kept: Record<string, unknown> = {};
  for (const k in body) {
    if (keeps(k)) kept[k] = body[k];
    else dropped.push(k);
  }
  return { body: kept, dropped };
}

const NOTHING_DROPPED: readonly string[] = Object.freeze([]);

/** Removes gateway-only fields before a body is forwarded as is. */
export function stripGatewayFields(body: Record<string, unknown>): Record<string, unknown> {
  let any = false;
  for (const k in body) if (GATEWAY_FIELDS.has(k)) { any = true; break; }
  if (!any) return body;
  return Object.fromEntries(Object.entries(body).filter(([k]) => !GATEWAY_FIELDS.has(k)));
}

/** The provider call for one request (per routing target; each attempt sets its upstream). */
export function buildCall(gw: GatewayState, entry: ModelEntry, body: Record<string, unknown>): OperationCall {
  const p = entry.provider;
  const t = entry.policy.timeouts;
  return {
    operation: gw.route.spec.operation,
    body,
    model: entry.spec,
    providerName: p.name,
    provider: p.spec,
    apiKey: p.apiKey,
    baseUrl: p.baseUrl,
    access: p.access,
    signal: gw.abort,
    timeoutMs: t.firstByteMs,
    timeouts: t,
    requestId: gw.requestId,
    owner: gw.owner,
    services: gw.services,
  };
}

/**
 * The call of one attempt: the target's call (buildCall) aimed at one upstream of its provider.
 * The target's call object is reused (a target's attempts run one after another; the two sides
 * of a hedge are different targets), so an attempt allocates nothing here.
 */
export function callFor(call: OperationCall, upstream: UpstreamRef, trace: AttemptTrace, signal: CallSignal): OperationCall {
  call.apiKey = upstream.apiKey;
  call.baseUrl = upstream.baseUrl;
  call.access = upstream.access;
  call.upstreamName = upstream.name;
  call.trace = trace;
  call.signal = signal;
  return call;
}
