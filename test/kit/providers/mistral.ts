/**
 * Mistral's OpenAI-compatible embeddings as a kit handler dialect (base URL `<url>/v1`);
 * validation errors are 422 `{object: 'error', message, type}`.
 */
import type { HandlerDialect } from '../handler.js';
import { bearerOf, missingFields, notOneOf, unknownFields } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';
import { openAiError } from './openai-errors.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the Mistral fake keeps. */
export interface MistralState { findings: Finding[] }

/** A running Mistral fake. */
export type MistralUpstream = ProviderUpstream<MistralState>;

const NAME = 'mistral';

type EmbedBody = { model: string; input: string | string[]; encoding_format?: string; output_dimension?: number };

/** The Mistral handler dialect, accepting `key`. */
export function mistralHandler(key: string, state: MistralState): HandlerDialect {
  return {
    name: 'mistral',
    match: (method, url) => method === 'POST' && url.pathname === '/v1/embeddings',
    handle: (req, violations) => {
      if (bearerOf(req) !== key) return refuseKey(violations, NAME, req, openAiError(401, 'Unauthorized'));
      const body = req.json as EmbedBody;
      const errors = [...unknownFields(body, ['model', 'input', 'encoding_format', 'output_dimension', 'output_dtype']), ...missingFields(body, ['model', 'input']), ...notOneOf(body.encoding_format, ['float', 'base64'], 'encoding_format')];
      const bad = recordFindings(state.findings, violations, NAME, req, errors, (e) => ({ status: 422, json: { object: 'error', message: e.join('; '), type: 'invalid_request_error' } }));
      if (bad) return bad;
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const data = inputs.map((t, index) => {
        const v = fakeVector(t, body.output_dimension ?? 1024);
        return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? encodeFloat32Base64(v) : v };
      });
      return { json: { id: 'emb-m', object: 'list', data, model: body.model, usage: { prompt_tokens: 5, total_tokens: 5, completion_tokens: 0 } } };
    },
    errorBody: (status, message) => ({ object: 'error', message, type: status >= 500 ? 'api_error' : 'invalid_request_error', param: null, code: null }),
  };
}

/** Starts the Mistral fake (default key `mi-test`). */
export async function startMistralUpstream(options: { key?: string; name?: string } = {}): Promise<MistralUpstream> {
  const key = options.key ?? 'mi-test';
  const state: MistralState = { findings: [] };
  return startProviderUpstream(options.name ?? NAME, key, [mistralHandler(key, state)], state);
}
