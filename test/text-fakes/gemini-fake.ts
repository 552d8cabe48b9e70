/**
 * Fake Gemini Developer API upstream: `POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse` with `x-goog-api-key` (or `?key=`); bodies validated against
 * the hand-written schema of gemini-request-schema.ts. Errors are google.rpc envelopes
 * (PROVIDERS.md section 5); a stream without `alt=sse` is refused, since it would be a JSON array.
 */
import type { DialectBehavior } from './fake-upstream.js';
import { validateGeminiRequest } from './gemini-request-schema.js';

const RPC_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

/** Google's error envelope `{error:{code, message, status}}` for a status. */
export function geminiErrorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: RPC_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') } };
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The generateContent dialect of the fake Gemini upstream. */
export const geminiBehavior: DialectBehavior = {
  name: 'gemini',
  match: (method, url) => {
    const m = method === 'POST' ? ROUTE.exec(url.pathname) : null;
    return m ? { model: decodeURIComponent(m[1]!), stream: m[2] === 'streamGenerateContent' } : undefined;
  },
  checkHeaders: (headers, url, apiKey) => {
    const key = headers['x-goog-api-key'] ?? url.searchParams.get('key');
    // A bad key is a 400 API_KEY_INVALID on Gemini, not a 401.
    if (key !== apiKey) return { status: 400, message: 'API key not valid. Please pass a valid API key.' };
    if (url.pathname.endsWith(':streamGenerateContent') && url.searchParams.get('alt') !== 'sse') {
      return { status: 400, message: 'streamGenerateContent without alt=sse answers a JSON array, not SSE' };
    }
    return undefined;
  },
  validate: (body, route) => validateGeminiRequest(body, route.model ?? ''),
  isStream: (_body, route) => route.stream === true,
  errorBody: geminiErrorBody,
  streamErrorEvent: (message) => `data: ${JSON.stringify(geminiErrorBody(503, message))}\n\n`,
  responseHeaders: () => ({ 'x-goog-request-id': 'fake-gemini' }),
};
