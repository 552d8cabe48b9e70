import { BlockList, isIP } from 'node:net';
import type { GatewayConfig } from '../config/types.js';

/** Picks the client address of a request from its socket peer and X-Forwarded-For. */
export type ClientAddressRule = (peer: string, forwardedFor: string | undefined) => string;

/**
 * The client-address rule of `server.trusted_proxies`:
 * - a CIDR list: walk X-Forwarded-For from the right (the socket peer first) and take the first
 *   address not in the list (the left-most addresses are whatever the client wrote, so they
 *   are never trusted past an untrusted hop);
 * - a hop count N: the address N hops from the right of peer + X-Forwarded-For (N = 1: the
 *   right-most X-Forwarded-For address, as seen by the one proxy in front);
 * - unset: the socket peer; X-Forwarded-For is ignored.
 * `trust_proxy: true` (replaced, lint warns) reads as a hop count of 1.
 */
export function createClientAddressRule(server: GatewayConfig['server']): ClientAddressRule {
  const trusted = server.trusted_proxies ?? (server.trust_proxy ? 1 : undefined);
  if (trusted === undefined) return (peer) => normalize(peer);
  if (typeof trusted === 'number') {
    return (peer, xff) => {
      const chain = [...splitForwarded(xff), normalize(peer)];
      return chain[Math.max(0, chain.length - 1 - trusted)]!;
    };
  }
  const list = new BlockList();
  for (const entry of trusted) {
    const [addr, bits] = entry.trim().split('/');
    const family = isIP(addr ?? '') === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr!, family);
    else list.addSubnet(addr!, Number(bits), family);
  }
  const isTrusted = (a: string) => {
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (peer, xff) => {
    const chain = [...splitForwarded(xff), normalize(peer)];
    for (let i = chain.length - 1; i >= 0; i--) if (!isTrusted(chain[i]!)) return chain[i]!;
    return chain[0]!; // every hop is a trusted proxy: the left-most is the best we know
  };
}

function splitForwarded(xff: string | undefined): string[] {
  if (!xff) return [];
  return xff.split(',').map((s) => normalize(s.trim().replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1'))).filter(Boolean);
}

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as plain IPv4. */
function normalize(a: string): string {
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}
