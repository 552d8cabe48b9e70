/**
 * A fake Google OAuth2 token endpoint for the service-account flow (JWT bearer grant, RFC 7523):
 * it RS256-verifies the assertion against the public key of the service account the test made,
 * checks its claims as Google does (iss = client_email, aud = Google's token URL, the
 * cloud-platform scope, iat/exp within an hour) and issues short-lived opaque access tokens,
 * which the fake Vertex accepts until they expire.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The `aud` Google's token endpoint requires (and google-auth-library sends). */
export const GOOGLE_TOKEN_AUD = 'https://oauth2.googleapis.com/token';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

/** A service account key file written for one test run. */
export interface ServiceAccount { clientEmail: string; keyId: string; publicKey: KeyObject; file: string; remove(): void }

/** Generates an RSA key pair and writes a service-account JSON with its private key. */
export function makeServiceAccount(projectId: string): ServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = randomBytes(20).toString('hex');
  const clientEmail = `gateway-test@${projectId}.iam.gserviceaccount.com`;
  const dir = mkdtempSync(join(tmpdir(), 'gw-sa-'));
  const file = join(dir, 'service-account.json');
  writeFileSync(file, JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: keyId,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: GOOGLE_TOKEN_AUD,
  }));
  return { clientEmail, keyId, publicKey, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One issued token. */
interface Issued { expiresAt: number }

/** The running token endpoint. */
export interface GoogleTokenServer {
  /** `http://127.0.0.1:<port>/token` */
  readonly url: string;
  /** Token requests answered with a token. */
  readonly issued: number;
  /** Token requests refused, with the reason. */
  readonly refusals: string[];
  /** Whether `token` was issued here and has not expired. */
  accepts(token: string): boolean;
  /** Lifetime of the next tokens, seconds. */
  setLifetime(seconds: number): void;
  /** Refuse every token request with 400 invalid_grant until set back (an outage or a revoked key). */
  setRefusing(refusing: boolean): void;
  close(): Promise<void>;
}

/** Starts the endpoint for one service account. */
export async function startGoogleTokenServer(account: Pick<ServiceAccount, 'clientEmail' | 'keyId' | 'publicKey'>, lifetimeSeconds = 3600): Promise<GoogleTokenServer> {
  const tokens = new Map<string, Issued>();
  const refusals: string[] = [];
  let issued = 0;
  let lifetime = lifetimeSeconds;
  let refusing = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const refuse = (why: string): void => {
        refusals.push(why);
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_grant', error_description: why }));
      };
      if (req.method !== 'POST' || req.url !== '/token') return refuse(`unexpected ${req.method} ${req.url}`);
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return refuse('not a form body');
      if (refusing) return refuse('Invalid JWT Signature.');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse(`grant_type ${form.get('grant_type')}`);
      const problem = checkAssertion(form.get('assertion') ?? '', account);
      if (problem) return refuse(problem);
      const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
      tokens.set(token, { expiresAt: Date.now() + lifetime * 1000 });
      issued++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: token, expires_in: lifetime, token_type: 'Bearer' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/token`,
    get issued() { return issued; },
    refusals,
    accepts: (token) => (tokens.get(token)?.expiresAt ?? 0) > Date.now(),
    setLifetime: (s) => { lifetime = s; },
    setRefusing: (r) => { refusing = r; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Why a JWT assertion would be refused by Google, or undefined when it is good. */
function checkAssertion(jwt: string, account: Pick<ServiceAccount, 'clientEmail' | 'keyId' | 'publicKey'>): string | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'assertion is not a JWT';
  const [h, c, s] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'assertion is not JSON';
  }
  if (header.alg !== 'RS256') return `alg ${String(header.alg)}`;
  if (header.kid !== undefined && header.kid !== account.keyId) return `kid ${String(header.kid)} is not the key's`;
  const key = createPublicKey(account.publicKey.export({ type: 'spki', format: 'pem' }));
  if (!verify('RSA-SHA256', Buffer.from(`${h}.${c}`), key, Buffer.from(s, 'base64url'))) return 'Invalid JWT Signature.';
  if (claims.iss !== account.clientEmail) return `iss ${String(claims.iss)}`;
  if (claims.aud !== GOOGLE_TOKEN_AUD) return `aud ${String(claims.aud)}`;
  if (!String(claims.scope ?? '').split(' ').includes(CLOUD_PLATFORM)) return `scope ${String(claims.scope)}`;
  const now = Math.floor(Date.now() / 1000);
  const iat = Number(claims.iat);
  const exp = Number(claims.exp);
  if (!(iat <= now + 60 && now < exp)) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
  if (exp - iat > 3600) return 'exp - iat is over an hour';
  return undefined;
}
