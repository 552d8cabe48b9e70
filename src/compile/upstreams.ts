import type { Env } from '../config/env.js';
import type { ProviderSpec } from '../config/types.js';
import { resolveDeployment } from '../providers/access.js';
import type { UpstreamRef } from '../routing/targets.js';

/** A provider's deployments resolved against the environment. */
export interface ResolvedUpstreams {
  /** The usable deployments, chosen by weight (none: the provider is disabled). */
  readonly upstreams: UpstreamRef[];
  /** What the provider needs when no deployment is usable (the first deployment's lack). */
  readonly missing?: string;
  /** Secret values read (redacted wherever an upstream echoes them). */
  readonly secrets: Array<string | undefined>;
}

/**
 * A provider's usable deployments: each `upstreams[]` entry with its own key, base URL, region
 * or location (falling back to the provider's), or one `default` deployment from the provider's
 * own settings. Deployments whose credentials or URL are missing are left out (a provider with
 * none left is disabled, and `missing` says what to set).
 */
export function resolveUpstreams(provider: string, spec: ProviderSpec, env: Env, needsKey: boolean): ResolvedUpstreams {
  const declared = spec.upstreams ?? [undefined];
  const out: UpstreamRef[] = [];
  const secrets: Array<string | undefined> = [];
  let missing: string | undefined;
  for (const u of declared) {
    const d = resolveDeployment(provider, spec, u, env, needsKey);
    secrets.push(...d.secrets, d.apiKey);
    if (d.missing) {
      missing ??= d.missing;
      continue;
    }
    const name = u?.name ?? 'default';
    out.push(Object.freeze({ name, key: `${provider}/${name}`, weight: u?.weight ?? 1, apiKey: d.apiKey, baseUrl: d.baseUrl, access: d.access }));
  }
  return { upstreams: out, missing: out.length > 0 ? undefined : missing, secrets };
}
