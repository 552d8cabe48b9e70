/**
 * The provider fakes themselves, each on its own kit upstream: a wrong key and a body the
 * provider would refuse are answered in the provider's own error shape and recorded as
 * violations (and findings); an injected fault pre-empts the handler with the provider's error
 * body; a path the provider has no route for (chat, for a non-OpenAI provider) is unrouted.
 */
import { expect } from 'chai';
import type { KitUpstream } from '../fake-upstream.js';
import { startCohereUpstream } from './cohere.js';
import { startElevenLabsUpstream } from './elevenlabs.js';
import type { Finding } from './findings.js';
import { startGoogleUpstream } from './google.js';
import { startJinaUpstream } from './jina.js';
import { startMistralUpstream } from './mistral.js';
import { startOpenAiUpstream } from './openai.js';
import { startVoyageUpstream } from './voyage.js';

/** One provider's fake and a valid and an invalid call of it. */
interface Case {
  name: string;
  start: () => Promise<KitUpstream & { findings: Finding[] }>;
  path: string;
  auth: (key: string) => Record<string, string>;
  valid: unknown;
  invalid: unknown;
  /** Status and body the provider refuses `invalid` with. */
  refusedStatus: number;
  refusedBody: (message: string) => unknown;
  /** The provider's error body for an injected 503 with message 'down'. */
  unavailable: unknown;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const CASES: Case[] = [
  {
    name: 'openai', start: () => startOpenAiUpstream(), path: '/v1/embeddings', auth: bearer,
    valid: { model: 'text-embedding-3-small', input: 'x' }, invalid: { model: 'text-embedding-3-small' },
    refusedStatus: 400, refusedBody: (m) => ({ error: { message: `Invalid request: ${m}`, type: 'invalid_request_error', param: null, code: null } }),
    unavailable: { error: { message: 'down', type: 'service_unavailable_error', param: null, code: null } },
  },
  {
    name: 'google', start: () => startGoogleUpstream(), path: '/v1beta/models/gemini-embedding-001:batchEmbedContents', auth: (key) => ({ 'x-goog-api-key': key }),
    valid: { requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'x' }] } }] }, invalid: { requests: [{ model: 'models/other', content: { parts: [{ text: 'x' }] } }] },
    refusedStatus: 400, refusedBody: (m) => ({ error: { code: 400, message: `Invalid JSON payload received. ${m}`, status: 'INVALID_ARGUMENT' } }),
    unavailable: { error: { code: 503, message: 'down', status: 'UNAVAILABLE' } },
  },
  {
    name: 'cohere', start: () => startCohereUpstream(), path: '/v2/embed', auth: bearer,
    valid: { model: 'embed-v4.0', texts: ['x'], input_type: 'search_document' }, invalid: { model: 'embed-v4.0', texts: ['x'] },
    refusedStatus: 400, refusedBody: (m) => ({ message: `invalid request: ${m}` }), unavailable: { message: 'down' },
  },
  {
    name: 'voyage', start: () => startVoyageUpstream(), path: '/v1/embeddings', auth: bearer,
    valid: { model: 'voyage-4', input: ['x'] }, invalid: { model: 'voyage-4', input: ['x'], dimensions: 8 },
    refusedStatus: 400, refusedBody: (m) => ({ detail: m }), unavailable: { detail: 'down' },
  },
  {
    name: 'jina', start: () => startJinaUpstream(), path: '/v1/rerank', auth: bearer,
    valid: { model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: ['a'] }, invalid: { model: 'jina-reranker-v2-base-multilingual', query: 'q' },
    refusedStatus: 422, refusedBody: (m) => ({ detail: m }), unavailable: { detail: 'down' },
  },
  {
    name: 'mistral', start: () => startMistralUpstream(), path: '/v1/embeddings', auth: bearer,
    valid: { model: 'mistral-embed', input: ['x'] }, invalid: { model: 'mistral-embed', input: ['x'], encoding_format: 'hex' },
    refusedStatus: 422, refusedBody: (m) => ({ object: 'error', message: m, type: 'invalid_request_error' }),
    unavailable: { object: 'error', message: 'down', type: 'api_error', param: null, code: null },
  },
  {
    name: 'elevenlabs', start: () => startElevenLabsUpstream(), path: '/v1/music', auth: (key) => ({ 'xi-api-key': key }),
    valid: { prompt: 'lofi' }, invalid: { prompt: 'lofi', music_length_ms: 10 },
    refusedStatus: 422, refusedBody: (m) => ({ detail: [{ loc: ['body'], msg: m, type: 'value_error' }] }),
    unavailable: { detail: { status: 'service_unavailable', message: 'down' } },
  },
];

async function call(upstream: KitUpstream, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${upstream.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) as unknown : text };
}

describe('kit/providers: the provider fakes', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      let upstream: KitUpstream & { findings: Finding[] };
      before(async () => { upstream = await c.start(); });
      after(async () => { await upstream.close(); });
      beforeEach(() => {
        upstream.reset();
        upstream.findings.length = 0;
      });

      it('answers a valid call, with a finding of no errors and no violation', async () => {
        const res = await call(upstream, c.path, c.auth(upstream.apiKey), c.valid);
        expect(res.status, JSON.stringify(res.json)).to.equal(200);
        expect(upstream.findings).to.deep.equal([{ path: c.path, errors: [] }]);
        expect(upstream.violations).to.deep.equal([]);
      });

      it('refuses a call the provider would refuse, in its error shape, as a finding and a violation', async () => {
        const res = await call(upstream, c.path, c.auth(upstream.apiKey), c.invalid);
        expect(res.status).to.equal(c.refusedStatus);
        expect(upstream.findings).to.have.length(1);
        const errors = upstream.findings[0]!.errors;
        expect(errors).to.not.deep.equal([]);
        expect(res.json).to.deep.equal(c.refusedBody(errors.join('; ')));
        expect(upstream.violations).to.deep.equal([`${c.name}: POST ${c.path}: ${errors.join('; ')}`]);
      });

      it('refuses a wrong key as a violation, without validating the body', async () => {
        const res = await call(upstream, c.path, c.auth('wrong-key'), c.valid);
        // Google answers a bad key 400 API_KEY_INVALID; the others 401.
        expect(res.status).to.equal(c.name === 'google' ? 400 : 401);
        expect(upstream.findings).to.deep.equal([]);
        expect(upstream.violations).to.deep.equal([`${c.name}: POST ${c.path}: wrong or missing API key`]);
      });

      it('answers an injected fault with its error body before the handler runs', async () => {
        upstream.enqueue({ status: 503, message: 'down', retryAfter: '2' });
        const res = await fetch(`${upstream.url}${c.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...c.auth(upstream.apiKey) }, body: JSON.stringify(c.valid) });
        expect(res.status).to.equal(503);
        expect(res.headers.get('retry-after')).to.equal('2');
        expect(await res.json()).to.deep.equal(c.unavailable);
        expect(upstream.findings, 'the handler did not run').to.deep.equal([]);
        expect(upstream.requests.map((r) => r.fault.status)).to.deep.equal([503]);
        const again = await call(upstream, c.path, c.auth(upstream.apiKey), c.valid);
        expect(again.status).to.equal(200);
      });

      it(c.name === 'openai' ? 'serves chat (the built-in text dialect) besides its own routes' : 'leaves chat unrouted (not this provider\'s API)', async () => {
        const res = await call(upstream, '/v1/chat/completions', bearer(upstream.apiKey), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
        if (c.name === 'openai') {
          expect(res.status).to.equal(200);
          expect(upstream.violations).to.deep.equal([]);
        } else {
          expect(res.status).to.equal(404);
          expect(upstream.violations).to.deep.equal([`${c.name}: unrouted POST /v1/chat/completions`]);
        }
      });
    });
  }
});
