import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { RealtimeClaims, RealtimeSigner } from '../providers/types.js';

/** The gateway's own realtime WebSocket path; the signed token rides in its query. */
export const REALTIME_WS_PATH = '/v1/realtime/ws';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Sealed, expiring realtime URLs. The token is `base64url(iv | tag | AES-256-GCM(claims))` under
 * a key derived from `realtime.secret`: authenticated (any change makes `verify` refuse it) and
 * opaque (the owning key's hash never shows in a URL, logs or a browser's history). Each sign
 * draws a fresh IV, so every token is unique: `tokenNonce` names it for single use. With
 * `ttlSeconds` (gateway.yaml `realtime.url_ttl_seconds`) the signer sets the expiry itself,
 * whatever the provider proposed.
 */
export function createRealtimeSigner(secret: string, publicBaseUrl: string, now: () => number = Date.now, ttlSeconds?: number): RealtimeSigner {
  const key = createHash('sha256').update(`gateway realtime url v1:${secret}`).digest();
  const wsBase = publicBaseUrl.replace(/^http/, 'ws').replace(/\/+$/, '');
  return {
    sign(proposed) {
      const claims = ttlSeconds ? { ...proposed, exp: Math.floor(now() / 1000) + ttlSeconds } : proposed;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
      const token = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
      return { url: `${wsBase}${REALTIME_WS_PATH}?token=${token}`, expiresAt: claims.exp, token };
    },
    verify(token) {
      const raw = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url') : Buffer.alloc(0);
      // One spelling per token (base64url drops stray trailing bits): the nonce is of the token text.
      if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== token) return undefined;
      let claims: RealtimeClaims;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
        claims = JSON.parse(plain.toString('utf8')) as RealtimeClaims;
      } catch {
        return undefined;
      }
      return typeof claims.exp === 'number' && claims.exp * 1000 > now() ? claims : undefined;
    },
  };
}

/** The single-use id of a token (its sha256): consumed in the shared store on connect. */
export function tokenNonce(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
