import type { ModelEntry } from '../compile/runtime.js';
import { providerNotAllowed } from '../billing/billing-errors.js';
import { errors } from '../errors/gateway-error.js';
import { orderTargets } from '../routing/strategy.js';
import type { LatencyTracker } from '../routing/latency.js';
import type { RoutingTarget } from '../routing/targets.js';
import type { GatewayState } from './state.js';
import { resolveModel } from './resolve-model.js';
import { allowsModel, allowsProvider, assertModelAllowed, assertProviderAllowed } from './key-spend.js';

/** Characters per token of the rough prompt estimate used to rank targets by price. */
const CHARS_PER_TOKEN = 4;

/**
 * The models a request may be answered by, in the order they are tried: the requested model
 * (a router model expands to its targets in its strategy's order), then the request's own
 * `models` list (OpenRouter's convention; it replaces the YAML `fallbacks`) or the YAML
 * `fallbacks`. Every `models` entry is checked before any upstream call: unknown -> 400,
 * outside the key's allowlist -> 403, exactly as `model` would be. YAML fallbacks the key may
 * not call, that lack the operation or whose provider is disabled are left out.
 */
export function resolveTargets(gw: GatewayState, latency: LatencyTracker): RoutingTarget<ModelEntry>[] {
  assertModelAllowed(gw.key, gw.body.model);
  const primary = resolveModel(gw);
  assertProviderAllowed(gw.key, primary);
  const requested = gw.body.models;
  const explicit = Array.isArray(requested) ? requested : undefined;
  if (explicit) {
    for (const id of explicit) {
      const entry = typeof id === 'string' ? gw.runtime.models.get(id) : undefined;
      if (!entry) throw errors.unknownModel(String(id));
      assertModelAllowed(gw.key, id);
      assertProviderAllowed(gw.key, entry);
    }
  }
  const out: RoutingTarget<ModelEntry>[] = [];
  const seen = new Set<string>();
  const operation = gw.route.spec.operation;
  // The request's size, measured once for every target a `cheapest` router prices.
  let size: RequestSize | undefined;
  const add = (entry: ModelEntry | undefined): void => {
    if (!entry || seen.has(entry.spec.id)) return;
    if (entry.router) {
      seen.add(entry.spec.id);
      for (const id of orderTargets(entry.router, { ttftMs: (t) => latency.ttftMs(t), costUsd: (t) => estimateCost(gw, t, (size ??= requestSize(gw.body))) })) add(gw.runtime.models.get(id));
      return;
    }
    if (!entry.operations.has(operation) || entry.provider.missing || !allowsProvider(gw.key, entry)) return;
    seen.add(entry.spec.id);
    out.push(targetOf(entry));
  };
  // The common case (one model, no fallbacks, no `models`): its target is built once per entry.
  if (!explicit && !primary.router && primary.fallbacks.length === 0 && primary.operations.has(operation) && !primary.provider.missing && !gw.key?.providerPatterns) return [targetOf(primary)];
  add(primary);
  const fallbacks = explicit ?? primary.fallbacks.filter((id) => allowsModel(gw.key?.modelPatterns, id));
  for (const id of fallbacks) add(gw.runtime.models.get(id as string));
  if (out.length === 0 && gw.key?.providerPatterns) throw providerNotAllowed(gw.key.spec.name, primary.spec.id);
  if (out.length === 0) throw errors.providerNotConfigured(primary.spec.id, primary.provider.missing ?? 'a configured target');
  return out;
}

const targets = new WeakMap<ModelEntry, RoutingTarget<ModelEntry>>();

/** The routing target of a catalog entry (built once per entry; entries are frozen). */
function targetOf(entry: ModelEntry): RoutingTarget<ModelEntry> {
  let t = targets.get(entry);
  if (!t) targets.set(entry, (t = Object.freeze({ id: entry.spec.id, provider: entry.provider.name, upstreams: entry.provider.upstreams, policy: entry.policy, entry })));
  return t;
}

/** What a price estimate reads of a request: its prompt's length and its output limit. */
interface RequestSize { readonly promptChars: number; readonly outputLimit: number }

function requestSize(body: Record<string, unknown>): RequestSize {
  const promptChars = JSON.stringify(body.messages ?? body.input ?? body.contents ?? '').length;
  const outputLimit = Number(body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? 1000) || 1000;
  return { promptChars, outputLimit };
}

/** A rough USD estimate of this request on a model (for `cheapest`): prompt by length, output by its limit. */
function estimateCost(gw: GatewayState, id: string, size: RequestSize): number {
  const entry = gw.runtime.models.get(id);
  if (!entry) return Infinity;
  const p = entry.pricing;
  return (p.prompt ?? 0) * (size.promptChars / CHARS_PER_TOKEN) + (p.completion ?? 0) * size.outputLimit + (p.request ?? 0);
}
