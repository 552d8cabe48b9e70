import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RealtimeClaims, RealtimeSigner } from '../providers/types.js';

/** The gateway's own realtime WebSocket path; the signed token rides in its query. */
export const REALTIME_WS_PATH = '/v1/realtime/ws';

/**
 * HMAC-SHA256 signed, expiring realtime URLs. The token is `base64url(claims).signature`;
 * any change to the claims or an expired `exp` makes `verify` refuse it. With `ttlSeconds`
 * (gateway.yaml `realtime.url_ttl_seconds`) the signer sets the expiry itself, whatever the
 * provider proposed.
 */
export function createRealtimeSigner(secret: string, publicBaseUrl: string, now: () => number = Date.now, ttlSeconds?: number): RealtimeSigner {
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');
  const wsBase = publicBaseUrl.replace(/^http/, 'ws').replace(/\/+$/, '');
  return {
    sign(proposed) {
      const claims = ttlSeconds ? { ...proposed, exp: Math.floor(now() / 1000) + ttlSeconds } : proposed;
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const token = `${payload}.${sign(payload)}`;
      return { url: `${wsBase}${REALTIME_WS_PATH}?token=${token}`, expiresAt: claims.exp, token };
    },
    verify(token) {
      const [payload, signature] = token.split('.');
      if (!payload || !signature) return undefined;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      let claims: RealtimeClaims;
      try {
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as RealtimeClaims;
      } catch {
        return undefined;
      }
      return typeof claims.exp === 'number' && claims.exp * 1000 > now() ? claims : undefined;
    },
  };
}
