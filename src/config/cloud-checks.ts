import type { Diagnostic } from './diagnostics.js';
import type { GatewayConfig } from './types.js';
import type { Vocabulary } from './vocabulary.js';
import { locate, type YamlSource } from './yaml-source.js';

/**
 * Checks of the cloud settings the meta-schema cannot express: `auth` replaces `api_key_env`
 * (not both), a `platform` serves only some provider types and takes only some `auth.type`s,
 * and names where it is (`project` on Vertex, `region` on Bedrock).
 */
export function checkCloudSettings(config: GatewayConfig, main: YamlSource, vocabulary: Vocabulary): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: Array<string | number>, code: string, message: string, key = false) => {
    out.push({ file: main.file, ...locate(main, path, key), code, severity: 'error', message });
  };
  for (const [name, p] of Object.entries(config.providers)) {
    const base = ['providers', name];
    if (p.auth && p.api_key_env !== undefined) {
      at([...base, 'api_key_env'], 'E_CONFLICTING_KEYS', `providers.${name} has both api_key_env and auth; write the key variable as auth.api_key_env`, true);
    }
    if (p.auth && vocabulary.providerTypes.get(p.type)?.needsKey === false) {
      at([...base, 'auth'], 'E_AUTH_NOT_SUPPORTED', `provider type ${p.type} takes no credentials`, true);
    }
    // A type that exists on one platform only (bedrock-converse) implies it.
    const platformName = p.platform ?? vocabulary.providerTypes.get(p.type)?.platform;
    if (!platformName) continue;
    const platform = vocabulary.platforms.get(platformName);
    if (!platform) continue; // the meta-schema reported the name
    if (!platform.types.includes(p.type)) {
      at([...base, 'type'], 'E_PLATFORM_TYPE', `platform ${platformName} serves provider types ${platform.types.join(', ')}, not ${p.type}`);
    }
    const authType = p.auth?.type ?? 'api_key';
    if (vocabulary.authTypes.has(authType) && !platform.authTypes.includes(authType)) {
      at(p.auth ? [...base, 'auth', 'type'] : base, 'E_PLATFORM_AUTH', `platform ${platformName} takes auth.type ${platform.authTypes.join(' or ')}${p.auth ? `, not ${authType}` : '; add an auth block'}`, !p.auth);
    }
    for (const setting of platform.requires) {
      const inUpstreams = setting === 'region' && (p.upstreams ?? []).length > 0 && (p.upstreams ?? []).every((u) => u.region !== undefined);
      if (p[setting] === undefined && !inUpstreams) at(base, 'E_MISSING_KEY', `platform ${platformName} needs providers.${name}.${setting} (it may come from a variable, e.g. ${setting === 'project' ? '${GOOGLE_CLOUD_PROJECT:-}' : '${AWS_REGION:-us-east-1}'})`, true);
    }
  }
  return out;
}
