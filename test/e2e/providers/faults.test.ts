import { expect } from 'chai';
import { startProviderRig, type ProviderRig } from './setup.js';

const documents = ['Paris is the capital of France', 'The capital of Germany is Berlin'];

/**
 * The kit's injected faults on every non-OpenAI provider family (the OpenAI ones are in
 * test/e2e/routing/operations.test.ts): a transient failure (5xx, reset, 429 with a short
 * Retry-After) is retried on the same deployment and answered once; a 429 whose Retry-After is
 * longer than the gateway waits reaches the client in the route's own JSON envelope, with a
 * stable error type and code and the provider's Retry-After.
 */
describe('e2e/providers/faults (injected upstream faults, non-OpenAI providers)', function () {
  this.timeout(30_000);
  let rig: ProviderRig;
  // Three tries per target (the test default is one): a retry is the gateway's, not a test's.
  before(async () => { rig = await startProviderRig({ GATEWAY_RETRY_ATTEMPTS: '3' }); });
  after(async () => { await rig.close(); });
  beforeEach(() => { for (const u of rig.upstreams) u.reset(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  describe('retried (GATEWAY_RETRY_ATTEMPTS 3)', () => {
    it('cohere: an embeddings 503 then success is retried and answered once', async () => {
      rig.cohere.enqueue({ status: 503, message: 'overloaded' });
      const res = await rig.post('/v1/embeddings', { model: 'cohere/embed-v4.0', input: ['doc one', 'doc two'] });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect((res.json.data as unknown[]).length).to.equal(2);
      expect(res.headers.get('x-gateway-attempts')).to.equal('2');
      expect(res.headers.get('x-gateway-fallback-reason')).to.equal('503');
      expect(rig.cohere.requests.map((r) => [r.path, r.fault.status])).to.deep.equal([['/v2/embed', 503], ['/v2/embed', undefined]]);
    });

    it('voyage: an embeddings connection reset then success is retried', async () => {
      rig.voyage.enqueue({ reset: true });
      const res = await rig.post('/v1/embeddings', { model: 'voyage/voyage-4', input: ['v'] });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.headers.get('x-gateway-attempts')).to.equal('2');
      expect(res.headers.get('x-gateway-fallback-reason')).to.equal('reset');
      expect(rig.voyage.requests).to.have.length(2);
    });

    it('jina: a rerank 429 with a short Retry-After is retried after it', async () => {
      rig.jina.enqueue({ status: 429, retryAfter: '1' });
      const started = Date.now();
      const res = await rig.post('/v1/rerank', { model: 'jina/jina-reranker-v2-base-multilingual', query: 'capital of Germany', documents });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect((res.json.results as Array<{ index: number }>)[0]!.index).to.equal(1);
      expect(res.headers.get('x-gateway-attempts')).to.equal('2');
      expect(res.headers.get('x-gateway-fallback-reason')).to.equal('429');
      expect(Date.now() - started, 'waited the Retry-After').to.be.at.least(900);
      expect(rig.jina.requests).to.have.length(2);
    });

    it('mistral: two embeddings 500s then success take three attempts', async () => {
      rig.mistral.enqueue({ status: 500 }, { status: 500 });
      const res = await rig.post('/v1/embeddings', { model: 'mistral/mistral-embed', input: ['m1'] });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.headers.get('x-gateway-attempts')).to.equal('3');
      expect(rig.mistral.requests).to.have.length(3);
    });

    it('mistral: three embeddings 500s exhaust the attempts and answer 502 upstream_error', async () => {
      rig.mistral.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
      const res = await rig.post('/v1/embeddings', { model: 'mistral/mistral-embed', input: ['m1'] });
      expect(res.status, JSON.stringify(res.json)).to.equal(502);
      expect(res.json.error).to.deep.include({ type: 'upstream_error', code: 'upstream_error' });
      expect(rig.mistral.requests).to.have.length(3);
    });

    it('google: an embeddings 503 UNAVAILABLE then success is retried', async () => {
      rig.google.enqueue({ status: 503 });
      const res = await rig.post('/v1/embeddings', { model: 'google/gemini-embedding-001', input: 'x', dimensions: 8 });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.headers.get('x-gateway-attempts')).to.equal('2');
      expect(rig.google.requests).to.have.length(2);
    });

    it('elevenlabs: speech after a reset streams the same bytes as without one', async () => {
      rig.elevenlabs.enqueue({ reset: true });
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-multilingual-v2', input: 'Hi' });
      expect(res.status, res.bytes.toString()).to.equal(200);
      expect(res.bytes.equals(rig.elevenlabs.audioBytes)).to.equal(true);
      expect(res.headers.get('x-gateway-attempts')).to.equal('2');
      expect(rig.elevenlabs.requests).to.have.length(2);
    });
  });

  describe('answered (a Retry-After longer than the gateway waits)', () => {
    /** The route's JSON error envelope of a provider 429. */
    function expectRateLimited(res: Awaited<ReturnType<ProviderRig['post']>>, provider: string): Record<string, unknown> {
      expect(res.status, res.bytes.toString()).to.equal(429);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('retry-after')).to.equal('60');
      const error = res.json.error as Record<string, unknown>;
      expect(error.type).to.equal('rate_limit_error');
      expect(String(error.message)).to.contain(`Provider '${provider}' answered 429`);
      return error;
    }

    it('google images: a 429 RESOURCE_EXHAUSTED reaches the client once, with its Retry-After', async () => {
      rig.google.enqueue({ status: 429, retryAfter: '60', message: 'Quota exceeded.' });
      const res = await rig.post('/v1/images/generations', { model: 'google/gemini-nano-banana-2.1', prompt: 'a banana' });
      const error = expectRateLimited(res, 'google');
      // The rpc status is the code, as the Gemini text dialect reads the same body (not the
      // numeric `error.code`, which is only the HTTP status again).
      expect(error.code).to.equal('RESOURCE_EXHAUSTED');
      expect(error.details).to.deep.include({ provider: 'google', upstream_status: 429, upstream_type: 'RESOURCE_EXHAUSTED' });
      expect(String(error.message)).to.contain('Quota exceeded.');
      expect(rig.google.requests).to.have.length(1);
    });

    it('elevenlabs speech: a 429 is a JSON error, not audio, with its Retry-After', async () => {
      rig.elevenlabs.enqueue({ status: 429, retryAfter: '60', message: 'Too many concurrent requests.' });
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-multilingual-v2', input: 'Hi' });
      const error = expectRateLimited(res, 'elevenlabs');
      expect(error.code).to.equal('too_many_concurrent_requests');
      expect(rig.elevenlabs.requests).to.have.length(1);
    });

    it('cohere rerank: a 429 without a code is rate_limit_exceeded', async () => {
      rig.cohere.enqueue({ status: 429, retryAfter: '60' });
      const res = await rig.post('/v1/rerank', { model: 'cohere/rerank-v3.5', query: 'capital', documents });
      const error = expectRateLimited(res, 'cohere');
      expect(error.code).to.equal('rate_limit_exceeded');
      expect(rig.cohere.requests).to.have.length(1);
    });
  });
});
