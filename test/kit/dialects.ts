/**
 * Every wire format the gateway calls, as the kit's fake upstreams speak it: the route, the auth
 * the provider checks, the schema of the body (the providers' vendored OpenAPI documents, or the
 * hand-written Gemini schema), the error shapes and the in-band stream error event.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { anthropicValidator, openAiRequestBody, openAiValidator } from '../helpers/openapi.js';
import { validateGeminiRequest } from './gemini-request-schema.js';

/** What a request's route says. */
export interface RouteMatch { model?: string; stream?: boolean }

/** Everything that differs per upstream wire format. */
export interface Dialect {
  readonly name: string;
  /** Text dialects answer from test/fixtures/text-upstreams/<name>; operations build their answer. */
  readonly kind: 'text' | 'operation';
  match(method: string, url: URL): RouteMatch | undefined;
  checkHeaders(headers: IncomingHttpHeaders, url: URL, apiKey: string): { status: number; message: string } | undefined;
  validate(body: unknown, route: RouteMatch, headers: IncomingHttpHeaders): string[];
  isStream(body: Record<string, unknown>, route: RouteMatch): boolean;
  errorBody(status: number, message: string): unknown;
  streamErrorEvent(message: string): string;
  /** The JSON answer of an operation (embeddings, images). */
  answer?(body: Record<string, unknown>): Record<string, unknown>;
  /** Headers the provider sends on every answer (request ids ...). */
  responseHeaders?(): Record<string, string>;
}

const OPENAI_ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'service_unavailable_error', code: null },
};

/** OpenAI's error envelope `{error:{message, type, param, code}}` for a status. */
export function openAiError(status: number, message: string): unknown {
  const known = OPENAI_ERRORS[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message, type: known.type, param: null, code: known.code } };
}

function bearer(headers: IncomingHttpHeaders, apiKey: string): { status: number; message: string } | undefined {
  if (headers.authorization === `Bearer ${apiKey}`) return undefined;
  return { status: 401, message: `Incorrect API key provided (authorization: ${headers.authorization ? 'wrong key' : 'missing'}).` };
}

/** OpenAI's per-answer headers. */
const openAiHeaders = (): Record<string, string> => ({ 'x-request-id': `req_${randomBytes(12).toString('hex')}`, 'openai-processing-ms': '42' });

const openAiStreamError = (message: string) => `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`;

/** A JSON operation of OpenAI's API validated against its OpenAPI operation. */
function openAiOperation(name: string, path: string, answer: (body: Record<string, unknown>) => Record<string, unknown>): Dialect {
  return {
    name,
    kind: 'operation',
    match: (method, url) => (method === 'POST' && url.pathname === `/v1${path}` ? {} : undefined),
    checkHeaders: (headers, _url, key) => bearer(headers, key),
    validate: (body, _route, headers) => {
      const type = String(headers['content-type'] ?? '').split(';')[0]!.trim();
      const op = openAiRequestBody('POST', path, type);
      return op ? op.validate(body) : [`no OpenAPI schema for POST ${path} as ${type}`];
    },
    isStream: () => false,
    errorBody: openAiError,
    streamErrorEvent: openAiStreamError,
    answer,
    responseHeaders: openAiHeaders,
  };
}

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error',
  404: 'not_found_error', 409: 'conflict_error', 413: 'request_too_large', 429: 'rate_limit_error',
  500: 'api_error', 504: 'timeout_error', 529: 'overloaded_error',
};

/** Anthropic's error envelope for a status. */
export function anthropicError(status: number, message: string): unknown {
  const type = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message }, request_id: `req_${randomBytes(12).toString('hex')}` };
}

/**
 * Anthropic's extended-thinking rule: with thinking on, the last assistant turn that holds
 * tool_use must start with a thinking (or redacted_thinking) block; the real API answers 400.
 */
function checkThinkingTurn(body: Record<string, unknown>): string[] {
  const thinking = body.thinking as { type?: string } | undefined;
  if (!thinking || thinking.type === 'disabled' || !Array.isArray(body.messages)) return [];
  const last = (body.messages as Array<{ role?: string; content?: unknown }>).findLast((m) => m.role === 'assistant');
  if (!last || !Array.isArray(last.content) || !last.content.some((b: { type?: string }) => b?.type === 'tool_use')) return [];
  const first = (last.content[0] as { type?: string } | undefined)?.type;
  return first === 'thinking' || first === 'redacted_thinking' ? [] : [`/messages: with thinking enabled, a final assistant message must start with a thinking block (found ${String(first)})`];
}

const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};
const GEMINI_ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
/** Google's error envelope `{error:{code, message, status}}` for a status. */
export const geminiError = (status: number, message: string): unknown => ({ error: { code: status, message, status: GEMINI_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') } });

/** The dialects every kit upstream serves. */
export const DIALECTS: readonly Dialect[] = [
  {
    name: 'openai-chat',
    kind: 'text',
    match: (method, url) => (method === 'POST' && url.pathname === '/v1/chat/completions' ? {} : undefined),
    checkHeaders: (headers, _url, key) => bearer(headers, key),
    validate: (body) => openAiValidator('CreateChatCompletionRequest')(body),
    isStream: (body) => body.stream === true,
    errorBody: openAiError,
    streamErrorEvent: openAiStreamError,
    responseHeaders: openAiHeaders,
  },
  {
    name: 'openai-responses',
    kind: 'text',
    match: (method, url) => (method === 'POST' && url.pathname === '/v1/responses' ? {} : undefined),
    checkHeaders: (headers, _url, key) => bearer(headers, key),
    validate: (body) => openAiValidator('CreateResponse')(body),
    isStream: (body) => body.stream === true,
    errorBody: openAiError,
    streamErrorEvent: (message) => `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message, param: null, sequence_number: 99 })}\n\n`,
    responseHeaders: openAiHeaders,
  },
  {
    name: 'anthropic-messages',
    kind: 'text',
    match: (method, url) => (method === 'POST' && url.pathname === '/v1/messages' ? {} : undefined),
    checkHeaders: (headers, _url, key) => {
      const got = headers['x-api-key'] ?? (headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : undefined);
      if (got !== key) return { status: 401, message: 'invalid x-api-key' };
      const version = headers['anthropic-version'];
      if (typeof version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(version)) return { status: 400, message: 'anthropic-version: header is required' };
      return undefined;
    },
    validate: (body, _route, headers) => {
      const findings = anthropicValidator('CreateMessageParams')(body);
      if (headers['anthropic-version'] === '2026-10-21') {
        for (const field of ['temperature', 'top_p', 'top_k']) if (field in (body as object)) findings.push(`/${field} is not supported under anthropic-version 2026-10-21`);
      }
      findings.push(...checkThinkingTurn(body as Record<string, unknown>));
      return findings;
    },
    isStream: (body) => body.stream === true,
    errorBody: anthropicError,
    streamErrorEvent: (message) => `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`,
    responseHeaders: () => ({ 'request-id': `req_${randomBytes(12).toString('hex')}` }),
  },
  {
    name: 'gemini',
    kind: 'text',
    match: (method, url) => {
      const m = method === 'POST' ? GEMINI_ROUTE.exec(url.pathname) : null;
      return m ? { model: decodeURIComponent(m[1]!), stream: m[2] === 'streamGenerateContent' } : undefined;
    },
    checkHeaders: (headers, url, key) => {
      // A bad key is a 400 API_KEY_INVALID on Gemini, not a 401.
      if ((headers['x-goog-api-key'] ?? url.searchParams.get('key')) !== key) return { status: 400, message: 'API key not valid. Please pass a valid API key.' };
      if (url.pathname.endsWith(':streamGenerateContent') && url.searchParams.get('alt') !== 'sse') {
        return { status: 400, message: 'streamGenerateContent without alt=sse answers a JSON array, not SSE' };
      }
      return undefined;
    },
    validate: (body, route) => validateGeminiRequest(body, route.model ?? ''),
    isStream: (_body, route) => route.stream === true,
    errorBody: geminiError,
    streamErrorEvent: (message) => `data: ${JSON.stringify(geminiError(503, message))}\n\n`,
    responseHeaders: () => ({ 'x-goog-request-id': 'fake-gemini' }),
  },
  openAiOperation('openai-embeddings', '/embeddings', (body) => {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    return {
      object: 'list',
      data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, -0.2, 0.3] })),
      model: String(body.model),
      usage: { prompt_tokens: 4 * inputs.length, total_tokens: 4 * inputs.length },
    };
  }),
  // POST /v1/responses/compact: the user messages of the input kept, then one opaque compaction item.
  openAiOperation('openai-responses-compact', '/responses/compact', (body) => ({
    id: 'resp_cmp_kit_0001',
    object: 'response.compaction',
    created_at: 1767225600,
    output: [
      ...(Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : [{ role: 'user', content: String(body.input ?? '') }])
        .filter((item) => item.role === 'user')
        .map((item, i) => ({ id: `msg_kit_${i}`, type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: typeof item.content === 'string' ? item.content : JSON.stringify(item.content) }] })),
      { id: 'cmp_kit_0001', type: 'compaction', encrypted_content: 'gAAAAABkitCompactedConversation==' },
    ],
    usage: { input_tokens: 139, input_tokens_details: { cached_tokens: 0 }, output_tokens: 438, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 577 },
  })),
  openAiOperation('openai-images', '/images/generations', () => ({
    created: Math.floor(Date.now() / 1000),
    // A 1x1 transparent PNG.
    data: [{ b64_json: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=' }],
    usage: { input_tokens: 8, output_tokens: 100, total_tokens: 108, input_tokens_details: { text_tokens: 8, image_tokens: 0 } },
  })),
];
