import { bearerOf, openAiError, startFakeServer, type FakeServer } from './fake-server.js';
import { missingFields, notOneOf, unknownFields } from './checks.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';

/** The fake Mistral API and what it saw. */
export interface FakeMistral extends FakeServer { findings: Array<{ path: string; errors: string[] }> }

/** A fake of Mistral's OpenAI-compatible embeddings (base URL `<url>/v1`). */
export async function startFakeMistral(options: { key?: string } = {}): Promise<FakeMistral> {
  const key = options.key ?? 'mi-test';
  const findings: FakeMistral['findings'] = [];
  const fake = await startFakeServer((req) => {
    if (bearerOf(req) !== key) return openAiError(401, 'Unauthorized');
    if (req.method !== 'POST' || req.path !== '/v1/embeddings') return openAiError(404, 'Not found');
    const body = req.json as { model: string; input: string | string[]; encoding_format?: string; output_dimension?: number };
    const errors = [...unknownFields(body, ['model', 'input', 'encoding_format', 'output_dimension', 'output_dtype']), ...missingFields(body, ['model', 'input']), ...notOneOf(body.encoding_format, ['float', 'base64'], 'encoding_format')];
    findings.push({ path: req.path, errors });
    if (errors.length > 0) return { status: 422, json: { object: 'error', message: errors.join('; '), type: 'invalid_request_error' } };
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const data = inputs.map((t, index) => {
      const v = fakeVector(t, body.output_dimension ?? 1024);
      return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? encodeFloat32Base64(v) : v };
    });
    return { json: { id: 'emb-m', object: 'list', data, model: body.model, usage: { prompt_tokens: 5, total_tokens: 5, completion_tokens: 0 } } };
  });
  return Object.assign(fake, { findings });
}
