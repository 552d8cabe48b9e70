import { GoogleAuth, type AuthClient } from 'google-auth-library';
import type { Expiring } from './cached-credential.js';

/** The scope Vertex AI (and every Google Cloud API) takes. */
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
/** Google's OAuth2 token endpoint, a constant of google-auth-library's service-account flow. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/**
 * Fetches access tokens through google-auth-library (loaded only by dynamic import from
 * ./google.ts). The library picks the flow from the credentials (service-account JWT
 * assertion, authorized user refresh token, external_account token exchange, metadata server);
 * `tokenUrl` sends its token requests to another endpoint (tests, private service connect)
 * through the library's own request interceptors. The caller caches and refreshes.
 */
export function googleTokenFetcher(options: { keyFilename?: string; tokenUrl?: string }): () => Promise<Expiring<string>> {
  const auth = new GoogleAuth({
    scopes: [CLOUD_PLATFORM],
    ...(options.keyFilename ? { keyFilename: options.keyFilename } : {}),
    // The gateway's cache asks for a new token only when it wants one: let the library agree.
    clientOptions: { eagerRefreshThresholdMillis: 6 * 60_000 },
  });
  let client: Promise<AuthClient> | undefined;
  return async () => {
    client ??= auth.getClient().then((c) => {
      if (options.tokenUrl) redirectTokenRequests(c, options.tokenUrl);
      return c;
    }, (e: unknown) => {
      client = undefined;
      throw e;
    });
    const c = await client;
    const got = await c.getAccessToken();
    if (!got.token) throw new Error('the token endpoint returned no access token');
    const expiry = c.credentials.expiry_date;
    return { value: got.token, expiresAt: typeof expiry === 'number' ? expiry : Date.now() + 3_600_000 };
  };
}

/** Points the client's requests to Google's OAuth2 token endpoint at `tokenUrl` instead. */
function redirectTokenRequests(client: AuthClient, tokenUrl: string): void {
  client.transporter.interceptors.request.add({
    resolved: async (config) => {
      const url = config.url instanceof URL ? config.url.href : String(config.url ?? '');
      if (url === GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
      return config;
    },
  });
}
