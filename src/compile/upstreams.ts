import type { Env } from '../config/env.js';
import type { ProviderSpec } from '../config/types.js';
import type { UpstreamRef } from '../routing/targets.js';

/**
 * A provider's usable deployments: each `upstreams[]` entry with its own key and base URL
 * variables (falling back to the provider's), or one `default` deployment from the provider's
 * own key and URL. Deployments whose key or URL is unset are left out (a provider with none
 * left is disabled).
 */
export function resolveUpstreams(
  provider: string,
  spec: ProviderSpec,
  env: Env,
  own: { keyVar: string; urlVar: string; apiKey?: string; baseUrl?: string },
  needsKey: boolean,
): UpstreamRef[] {
  const declared = spec.upstreams ?? [{ name: 'default' }];
  const out: UpstreamRef[] = [];
  for (const u of declared) {
    const apiKey = u.api_key_env ? env[u.api_key_env] || undefined : own.apiKey;
    const baseUrl = u.base_url_env ? env[u.base_url_env] || spec.base_url : own.baseUrl;
    if (needsKey && (!apiKey || !baseUrl)) continue;
    out.push(Object.freeze({ name: u.name, key: `${provider}/${u.name}`, weight: u.weight ?? 1, apiKey, baseUrl }));
  }
  return out;
}
