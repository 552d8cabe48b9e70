/**
 * A fake Microsoft Entra ID authority over TLS (MSAL refuses plain http): the tenant's OpenID
 * metadata and its OAuth2 v2.0 token endpoint for the client-credentials grant. It checks the
 * client id, the client secret and the Cognitive Services scope, and issues short-lived opaque
 * tokens that the fake Azure OpenAI accepts until they expire.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './self-signed.js';

export const COGNITIVE_SCOPE = 'https://cognitiveservices.azure.com/.default';

export interface EntraServer {
  /** `https://127.0.0.1:<port>` (AZURE_AUTHORITY_HOST). */
  readonly url: string;
  /** The PEM certificate to trust (NODE_EXTRA_CA_CERTS). */
  readonly cert: string;
  readonly issued: number;
  readonly refusals: string[];
  /** Paths asked for that the fake does not serve. */
  readonly unknown: string[];
  accepts(token: string): boolean;
  setLifetime(seconds: number): void;
  close(): Promise<void>;
}

/** Starts the authority of one tenant with one registered client (id + secret). */
export async function startEntraServer(app: { tenantId: string; clientId: string; clientSecret: string }, lifetimeSeconds = 3600): Promise<EntraServer> {
  const { cert, key } = selfSignedCertificate();
  const tokens = new Map<string, number>();
  const refusals: string[] = [];
  const unknown: string[] = [];
  let issued = 0;
  let lifetime = lifetimeSeconds;
  let base = '';
  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', base);
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      const tenantPath = `/${app.tenantId}`;
      if (req.method === 'GET' && url.pathname === `${tenantPath}/v2.0/.well-known/openid-configuration`) {
        return json(200, {
          issuer: `${base}${tenantPath}/v2.0`,
          authorization_endpoint: `${base}${tenantPath}/oauth2/v2.0/authorize`,
          token_endpoint: `${base}${tenantPath}/oauth2/v2.0/token`,
          end_session_endpoint: `${base}${tenantPath}/oauth2/v2.0/logout`,
          jwks_uri: `${base}${tenantPath}/discovery/v2.0/keys`,
          response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        });
      }
      if (req.method === 'POST' && url.pathname === `${tenantPath}/oauth2/v2.0/token`) {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const refuse = (status: number, error: string, description: string): void => {
          refusals.push(`${error}: ${description}`);
          json(status, { error, error_description: description, error_codes: [7000215], timestamp: new Date().toISOString() });
        };
        if (form.get('grant_type') !== 'client_credentials') return refuse(400, 'unsupported_grant_type', String(form.get('grant_type')));
        if (form.get('client_id') !== app.clientId) return refuse(400, 'unauthorized_client', `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found.`);
        if (form.get('client_secret') !== app.clientSecret) return refuse(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
        if (form.get('scope') !== COGNITIVE_SCOPE) return refuse(400, 'invalid_scope', `AADSTS70011: scope ${form.get('scope')}`);
        const token = `eyJ0eXAiOiJKV1QifQ.fake-entra-${randomBytes(16).toString('hex')}`;
        tokens.set(token, Date.now() + lifetime * 1000);
        issued++;
        return json(200, { token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: token });
      }
      unknown.push(`${req.method} ${url.pathname}`);
      json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  base = `https://127.0.0.1:${port}`;
  return {
    url: base,
    cert,
    get issued() { return issued; },
    refusals,
    unknown,
    accepts: (token) => (tokens.get(token) ?? 0) > Date.now(),
    setLifetime: (s) => { lifetime = s; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
