import { parsePricing } from '../billing/pricing.js';
import type { GatewayConfig, ModelSpec } from '../config/types.js';
import { resolvePolicy } from '../routing/policy.js';
import type { RouterSpec } from '../routing/targets.js';
import { buildCard } from './catalog.js';
import type { ModelEntry, ResolvedProvider } from './runtime.js';

/** The name router models report as their provider. */
export const ROUTER_PROVIDER = 'router';

/**
 * A router model (`route:`, no provider) as a catalog entry: it serves what all its targets
 * serve, accepts what any accepts, and its card shows the highest price of its targets (what
 * a call may cost). It is enabled while one of its targets is. Targets must be compiled first
 * (cross-check guarantees they exist and are not routers).
 */
export function compileRouterModel(spec: ModelSpec, models: ReadonlyMap<string, ModelEntry>, config: GatewayConfig): ModelEntry {
  const route = spec.route!;
  const router: RouterSpec = Object.freeze({
    strategy: route.strategy,
    targets: Object.freeze(route.targets.map((t) => Object.freeze(typeof t === 'string' ? { id: t, weight: 1 } : { id: t.model, weight: t.weight ?? 1 }))),
    hedgeAfterMs: route.hedge_after_ms,
  });
  const entries = router.targets.map((t) => models.get(t.id)).filter((e): e is ModelEntry => e !== undefined);
  const endpoints = entries.length === 0 ? [] : entries[0]!.spec.endpoints.filter((e) => entries.every((x) => x.spec.endpoints.includes(e)));
  const operations = entries.length === 0 ? [] : [...entries[0]!.operations].filter((o) => entries.every((x) => x.operations.has(o)));
  const parameters = [...new Set(entries.flatMap((e) => e.spec.parameters ?? []))];
  const pricing: Record<string, string> = {};
  for (const e of entries) {
    for (const [k, v] of Object.entries(e.spec.pricing ?? {})) if (pricing[k] === undefined || Number(v) > Number(pricing[k])) pricing[k] = v;
  }
  const contexts = entries.map((e) => e.spec.context_length).filter((c): c is number => c !== undefined);
  const full: ModelSpec = {
    ...spec,
    provider: ROUTER_PROVIDER,
    endpoints: spec.endpoints ?? endpoints,
    parameters: spec.parameters ?? parameters,
    ...(Object.keys(pricing).length > 0 && !spec.pricing ? { pricing } : {}),
    ...(contexts.length > 0 && !spec.context_length ? { context_length: Math.min(...contexts) } : {}),
    owned_by: spec.owned_by ?? 'gateway',
    description: spec.description ?? `Routes to ${router.targets.map((t) => t.id).join(', ')} (${router.strategy}).`,
  };
  const enabled = entries.some((e) => !e.provider.missing);
  const provider: ResolvedProvider = Object.freeze({
    name: ROUTER_PROVIDER,
    spec: { type: ROUTER_PROVIDER },
    impl: { type: ROUTER_PROVIDER },
    upstreams: [],
    missing: enabled ? undefined : `a key for one of ${router.targets.map((t) => t.id).join(', ')}`,
  });
  return Object.freeze({
    spec: full,
    provider,
    upstream: spec.id,
    operations: new Set(operations),
    parameters: new Set(full.parameters ?? []),
    card: Object.freeze(buildCard(full, operations)),
    pricing: parsePricing(full.pricing),
    policy: resolvePolicy([config.routing, spec.routing]),
    fallbacks: Object.freeze([...(spec.fallbacks ?? [])]),
    hedgeAfterMs: route.hedge_after_ms ?? spec.hedge_after_ms,
    router,
  });
}
