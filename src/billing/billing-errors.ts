import { GatewayError } from '../errors/gateway-error.js';

/**
 * 400 `budget_exceeded`: the worst case of this request exceeds its `max_budget_usd` and no
 * useful answer fits (details carry the estimate).
 */
export function budgetExceeded(estimateUsd: number, budgetUsd: number, details: Record<string, unknown>): GatewayError {
  return new GatewayError(
    400, 'invalid_request_error', 'budget_exceeded',
    `The request's worst-case cost (${estimateUsd.toFixed(6)} USD) exceeds max_budget_usd (${budgetUsd}) and no useful answer fits; raise the budget or shorten the request.`,
    { estimate_usd: estimateUsd, max_budget_usd: budgetUsd, ...details },
  );
}

/**
 * 402 `budget_exhausted`: the calling key's spend budget for the current period cannot cover
 * this request. `Retry-After` tells when the period resets (absent for `total` budgets).
 */
export function budgetExhausted(details: { key: string; team?: string; period: string; budget_usd: number; used_usd: number; needed_usd: number; resets_in_seconds: number }): GatewayError {
  const headers = details.resets_in_seconds > 0 ? { 'Retry-After': String(details.resets_in_seconds) } : undefined;
  return new GatewayError(
    402, 'billing_error', 'budget_exhausted',
    `${details.team !== undefined ? `Team '${details.team}'` : `API key '${details.key}'`} has used ${details.used_usd.toFixed(6)} of its ${details.budget_usd} USD ${details.period} budget; this request needs up to ${details.needed_usd.toFixed(6)} USD.`,
    details, headers,
  );
}

/** 403 `model_not_allowed`: the key's `models` globs do not match the model. */
export function modelNotAllowed(key: string, model: string): GatewayError {
  return new GatewayError(403, 'permission_error', 'model_not_allowed', `API key '${key}' may not call model '${model}'.`, { model });
}

/** 429 `rate_limit_exceeded` for a key's rpm or tpm limit, with an integer Retry-After >= 1. */
export function keyRateLimited(limit: 'rpm' | 'tpm', value: number, retryAfterSeconds: number): GatewayError {
  const retry = Math.max(1, Math.ceil(retryAfterSeconds));
  const what = limit === 'rpm' ? 'requests' : 'tokens';
  return new GatewayError(
    429, 'rate_limit_error', 'rate_limit_exceeded',
    `This API key is limited to ${value} ${what} per minute; retry in ${retry} s.`,
    { limit, value, retry_after_seconds: retry },
    { 'Retry-After': String(retry) },
  );
}

/** 403 `provider_not_allowed` when the calling key's `providers` globs do not match a provider. */
export function providerNotAllowed(key: string, provider: string): GatewayError {
  return new GatewayError(403, 'permission_error', 'provider_not_allowed', `API key '${key}' may not reach provider '${provider}' (its \`providers\` list does not include it).`, { provider });
}
