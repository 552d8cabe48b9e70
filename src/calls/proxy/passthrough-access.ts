import type { IncomingHttpHeaders } from 'node:http';
import { providerNotAllowed } from '../../billing/billing-errors.js';
import type { KeyEntry, ProxyPlan } from '../../compile/runtime.js';
import { errors, gatewayError } from '../../errors/gateway-error.js';
import { forwardedHeaders } from './proxy-headers.js';
import { upstreamPathOf } from './proxy-path.js';

/**
 * The gateway's controls on one pass-through request, before anything is sent: the key's
 * provider allowlist, budgets that cannot be bypassed, the provider being configured.
 * Throws the documented 403/400 errors.
 */
export function assertPassthroughAllowed(plan: ProxyPlan, key: KeyEntry | undefined, routeFile: string): void {
  if (key?.providerPatterns && !key.providerPatterns.some((re) => re.test(plan.provider))) throw providerNotAllowed(key.spec.name, plan.provider);
  // A flat charge is the only price a forwarded request has: without one, a key with a budget
  // would spend without limit, so it is refused instead.
  if (key && plan.chargeUsd === undefined && (key.spec.budget !== undefined || key.team?.budget !== undefined)) {
    throw gatewayError('passthrough_not_billable',
      `API key '${key.spec.name}' has a budget, and this pass-through route (${routeFile}) declares no charge_usd, so its spend could not be counted; ask the operator to set proxy.charge_usd on the route or use a key without a budget.`,
      { details: { route: routeFile, provider: plan.provider } });
  }
  if (plan.missing) throw errors.providerNotConfigured(plan.provider, plan.missing);
}

/** The upstream request of a pass-through call: its path and query, and its headers. */
export interface ForwardedRequest { url: string; headers: IncomingHttpHeaders }

/**
 * The request as the upstream receives it: the normalised path (403 when `..` climbs out of
 * the prefix or no `allow` glob matches, 400 for an unreadable path) and the client's headers
 * without the client's key. The provider's credentials are put on by the proxy engine as the
 * request goes (./forward-credentials.ts), once its body is known to the signers that need it.
 */
export function forwardedRequest(plan: ProxyPlan, rawUrl: string, headers: IncomingHttpHeaders, requestId: string): ForwardedRequest {
  const path = upstreamPathOf(rawUrl, plan);
  if (!path.ok) {
    if (path.refusal === 'malformed') throw errors.invalidRequest('The request path is not a valid URL path (bad percent escape, or an encoded "/", "\\" or NUL).');
    throw gatewayError('passthrough_path_not_allowed', `Path ${path.providerPath ?? rawUrl.split('?')[0]} is not forwarded by this pass-through route${plan.allow ? ' (not in its allow list)' : ''}.`, { details: { path: path.providerPath ?? null } });
  }
  return { url: path.path, headers: forwardedHeaders(headers, plan.headers, requestId) };
}
