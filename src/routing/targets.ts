import type { UpstreamAccess } from '../providers/types.js';
import type { RoutingPolicy } from './policy.js';

/** One deployment of a provider as the loop uses it (key and base URL resolved at compile time). */
export interface UpstreamRef {
  /** `upstreams[].name` (`default` when the provider declares none). */
  readonly name: string;
  /** Breaker key: `<provider>/<name>`. */
  readonly key: string;
  readonly weight: number;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  /** Platform shape and credentials of the deployment (cloud providers). */
  readonly access?: UpstreamAccess;
}

/** A router model's targets, compiled. */
export interface RouterSpec {
  readonly strategy: 'fallback' | 'weighted' | 'cheapest' | 'fastest';
  readonly targets: ReadonlyArray<{ readonly id: string; readonly weight: number }>;
  readonly hedgeAfterMs?: number;
}

/** What the routing loop needs of one target model. */
export interface RoutingTarget<E = unknown> {
  /** Canonical model id. */
  readonly id: string;
  readonly provider: string;
  readonly upstreams: readonly UpstreamRef[];
  readonly policy: RoutingPolicy;
  /** The caller's own data for the target (the catalog entry). */
  readonly entry: E;
}
