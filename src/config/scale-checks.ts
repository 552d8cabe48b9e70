import { isIP } from 'node:net';
import type { Diagnostic } from './diagnostics.js';
import type { GatewayConfig } from './types.js';
import { locate, type YamlSource } from './yaml-source.js';

/**
 * Checks of a config meant to run as several instances: a shared store needs a shared
 * realtime secret (a per-process random one makes signed URLs fail on every other instance)
 * and file bytes every instance can read (one shared files.dir, or S3),
 * `server.trust_proxy` is replaced by `server.trusted_proxies`, whose entries must be
 * addresses or CIDRs.
 */
export function checkScaleOut(config: GatewayConfig, main: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: Array<string | number>, code: string, severity: Diagnostic['severity'], message: string) => {
    out.push({ file: main.file, ...locate(main, path, false), code, severity, message });
  };
  if (config.store.url !== 'memory' && !config.realtime.secret) {
    at(['store', 'url'], 'E_REALTIME_SECRET_REQUIRED', 'error', 'a shared store (Redis) needs realtime.secret set to the same value on every instance, or signed realtime URLs fail on all but the instance that signed them');
  }
  if (config.store.url !== 'memory' && config.files.store !== 's3' && config.store.instances !== 1) {
    at(['store', 'url'], 'W_FILES_LOCAL_SHARED_STORE', 'warning', 'files.store: local with a shared store (Redis): file records are shared but the bytes stay on the disk of the instance that took the upload; mount one shared volume at files.dir on every instance, or set files.store: s3 (otherwise other instances answer 502 file_bytes_unavailable for those files)');
  }
  if (config.server.trust_proxy) {
    at(['server', 'trust_proxy'], 'W_TRUST_PROXY_REPLACED', 'warning', 'server.trust_proxy is replaced by server.trusted_proxies (a CIDR list or a hop count); trust_proxy: true is read as trusted_proxies: 1 (one proxy in front)');
  }
  const proxies = config.server.trusted_proxies;
  if (Array.isArray(proxies)) {
    proxies.forEach((entry, i) => {
      if (!isCidr(entry)) at(['server', 'trusted_proxies', i], 'E_TRUSTED_PROXY', 'error', `'${entry}' is not an IP address or CIDR (e.g. 10.0.0.0/8, 192.168.1.10, fd00::/8)`);
    });
  }
  return out;
}

/** Whether `s` is an IPv4/IPv6 address or CIDR block. */
export function isCidr(s: string): boolean {
  const [addr, bits, ...rest] = s.trim().split('/');
  if (rest.length > 0 || !addr) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
