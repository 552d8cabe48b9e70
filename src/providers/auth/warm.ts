import type { UpstreamAccess } from '../types.js';

/**
 * Starts the first credential fetch of every usable cloud deployment (token requests, the
 * library's load) without waiting, so the first call finds its credential ready or in flight.
 * Providers without an `auth` block have nothing to warm; a failure is reported on first use.
 */
export function warmCredentials(providers: Iterable<{ readonly upstreams: ReadonlyArray<{ readonly access?: UpstreamAccess }> }>): void {
  for (const p of providers) for (const u of p.upstreams) u.access?.authorizer?.warm?.();
}
