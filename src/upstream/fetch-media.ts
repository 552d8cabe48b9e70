import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from './undici-core.js';
import { dispatchUpstream, type UpstreamHead } from './upstream-body.js';
import { errors } from '../errors/gateway-error.js';

/** Limits for fetching a URL on a client's behalf (gateway.yaml `limits.fetch`). */
export interface FetchPolicy { allowPrivate: boolean; maxBytes: number; timeoutMs: number }

// Loopback, private, link-local, CGNAT, multicast and reserved ranges are never fetched
// unless the operator allows private targets.
const blocked = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96], ['64:ff9b::', 96]] as const) blocked.addSubnet(net, bits, 'ipv6');

/** True when an address is one the gateway must not reach for a client. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) return isPrivateAddress(address.slice(7));
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Fetches a URL on a client's behalf, with its own connection pool. */
export interface MediaFetcher {
  (url: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; contentType: string }>;
  /** Closes the pool once the fetches it is running are done; a fetch after that fails (`fetch_failed`). */
  close(): Promise<void>;
}

/**
 * Creates the fetcher. The address check runs inside the connection's DNS lookup, so the
 * address checked is the address connected to (no rebinding between check and connect).
 */
export function createMediaFetcher(policy: FetchPolicy): MediaFetcher {
  const agent = new Agent({
    connect: {
      timeout: policy.timeoutMs,
      lookup: (hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 0);
          const list = addresses as LookupAddress[];
          if (!policy.allowPrivate && list.some((a) => isPrivateAddress(a.address))) {
            const e = new Error('private address refused') as NodeJS.ErrnoException;
            e.code = 'EPRIVATE';
            return callback(e, '', 0);
          }
          const wantAll = (options as { all?: boolean }).all;
          return wantAll ? callback(null, list) : callback(null, list[0]!.address, list[0]!.family);
        });
      },
    },
  });
  const fetchMedia = async (url: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; contentType: string }> => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw errors.invalidRequest(`Cannot fetch '${url.slice(0, 100)}': not a valid URL.`, 'invalid_url');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw errors.invalidRequest(`Cannot fetch a ${parsed.protocol} URL; only http and https are fetched.`, 'invalid_url');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (!policy.allowPrivate && (isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) {
      throw errors.invalidRequest(`Refusing to fetch ${parsed.host}: loopback, private and link-local addresses are not fetched.`, 'url_not_allowed');
    }
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    let res: UpstreamHead;
    try {
      // A redirect is answered as it is (status 3xx, refused below): never followed to an unchecked host.
      res = await dispatchUpstream(agent, { origin: parsed.origin, path: parsed.pathname + parsed.search, method: 'GET', headersTimeout: policy.timeoutMs, bodyTimeout: policy.timeoutMs }, AbortSignal.any([signal, timeout]));
    } catch (e) {
      if ((e as { code?: string }).code === 'EPRIVATE' || (e as { cause?: { code?: string } }).cause?.code === 'EPRIVATE') {
        throw errors.invalidRequest(`Refusing to fetch ${parsed.host}: it resolves to a private address.`, 'url_not_allowed');
      }
      if (timeout.aborted) throw errors.invalidRequest(`Fetching ${parsed.host} took longer than ${policy.timeoutMs} ms.`, 'fetch_timeout');
      throw errors.invalidRequest(`Could not fetch ${parsed.host}.`, 'fetch_failed');
    }
    if (res.status >= 300) {
      res.body.destroy();
      throw errors.invalidRequest(`Fetching ${parsed.host} answered ${res.status}.`, 'fetch_failed');
    }
    const declared = Number(res.header('content-length') ?? 0);
    if (declared > policy.maxBytes) {
      res.body.destroy();
      throw errors.invalidRequest(`The resource at ${parsed.host} is larger than ${policy.maxBytes} bytes.`, 'fetch_too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body.toReadable() as AsyncIterable<Buffer>) {
      size += chunk.length;
      // Leaving the loop discards the rest of the body (the request is aborted).
      if (size > policy.maxBytes) throw errors.invalidRequest(`The resource at ${parsed.host} is larger than ${policy.maxBytes} bytes.`, 'fetch_too_large');
      chunks.push(chunk);
    }
    return { bytes: new Uint8Array(Buffer.concat(chunks)), contentType: res.header('content-type') ?? 'application/octet-stream' };
  };
  return Object.assign(fetchMedia, { close: () => agent.close() });
}
