import { expect } from 'chai';
import { startGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

interface Card { id: string; object: string; created: number; owned_by: string; pricing?: Record<string, unknown>; supported_endpoints?: string[]; supported_operations?: string[]; supported_parameters?: string[]; context_length?: number }

describe('discovery', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { GATEWAY_DISCOVERY_RPM: '1000' } }); });
  after(() => gw.close());

  describe('GET /v1/models', () => {
    it('lists sandbox models anonymously, with SPEC 2.1 fields', async () => {
      const res = await fetch(`${gw.url}/v1/models`);
      expect(res.status).to.equal(200);
      const body = await res.json() as { object: string; data: Card[] };
      expect(body.object).to.equal('list');
      const echo = body.data.find((m) => m.id === 'sandbox/echo-1');
      expect(echo, 'sandbox/echo-1 listed').to.not.equal(undefined);
      expect(echo!.object).to.equal('model');
      expect(echo!.created).to.be.a('number');
      expect(echo!.owned_by).to.be.a('string');
      expect(echo!.supported_endpoints).to.include.members(['/v1/chat/completions', '/v1/messages', '/v1/responses']);
      expect(echo!.supported_operations).to.include('chat.completions');
      expect(echo!.supported_parameters).to.include('temperature');
      for (const v of Object.values(echo!.pricing ?? {})) expect(v).to.be.a('string');
    });

    it('leaves out models of providers without a key', async () => {
      const body = await (await fetch(`${gw.url}/v1/models`)).json() as { data: Card[] };
      expect(body.data.some((m) => m.id.startsWith('openai/'))).to.equal(false);
    });

    it('sends a strong ETag and answers 304 to If-None-Match', async () => {
      const first = await fetch(`${gw.url}/v1/models`);
      const etag = first.headers.get('etag');
      expect(etag).to.match(/^"[^"]+"$/);
      expect(first.headers.get('cache-control')).to.include('max-age');
      const again = await fetch(`${gw.url}/v1/models`, { headers: { 'if-none-match': etag! } });
      expect(again.status).to.equal(304);
      expect(await again.text()).to.equal('');
    });

    it('filters by supported_parameters: every listed name must be supported', async () => {
      const all = await (await fetch(`${gw.url}/v1/models`)).json() as { data: Card[] };
      const res = await fetch(`${gw.url}/v1/models?supported_parameters=tools,temperature`);
      const body = await res.json() as { data: Card[] };
      expect(body.data.length).to.be.greaterThan(0).and.lessThan(all.data.length);
      for (const m of body.data) expect(m.supported_parameters).to.include.members(['tools', 'temperature']);
      const none = await (await fetch(`${gw.url}/v1/models?supported_parameters=tools,no_such_param`)).json() as { data: Card[] };
      expect(none.data).to.deep.equal([]);
      expect(res.headers.get('etag')).to.not.equal(null);
    });

    it('returns exactly the models whose card lists the parameter, under every spelling (SPEC 4.17)', async () => {
      const all = (await (await fetch(`${gw.url}/v1/models`)).json() as { data: Card[] }).data;
      const names = ['max_tokens', 'max_completion_tokens', 'max_output_tokens', 'tools', 'functions', 'response_format', 'output_format', 'temperature', 'reasoning_effort', 'stop_sequences'];
      for (const name of names) {
        const listed = (await (await fetch(`${gw.url}/v1/models?supported_parameters=${name}`)).json() as { data: Card[] }).data.map((m) => m.id);
        const carded = all.filter((m) => m.supported_parameters?.includes(name)).map((m) => m.id);
        expect(listed, `?supported_parameters=${name}`).to.deep.equal(carded);
      }
      const echo = all.find((m) => m.id === 'sandbox/echo-1')!;
      expect(echo.supported_parameters, 'one capability, every spelling the gateway accepts').to.include.members(['max_tokens', 'max_completion_tokens', 'tools', 'functions']);
      expect(new Set(echo.supported_parameters).size, 'no repeats').to.equal(echo.supported_parameters!.length);
    });
  });

  describe('GET /v1/models/{provider}/{model}', () => {
    it('returns one card with its own ETag', async () => {
      const res = await fetch(`${gw.url}/v1/models/sandbox/embed-1`);
      expect(res.status).to.equal(200);
      const card = await res.json() as Card;
      expect(card.id).to.equal('sandbox/embed-1');
      expect(card.supported_endpoints).to.deep.equal(['/v1/embeddings']);
      const etag = res.headers.get('etag')!;
      expect((await fetch(`${gw.url}/v1/models/sandbox/embed-1`, { headers: { 'if-none-match': etag } })).status).to.equal(304);
    });

    it('answers 404 in the error envelope for an unknown model', async () => {
      const res = await fetch(`${gw.url}/v1/models/sandbox/nope`);
      expect(res.status).to.equal(404);
      const body = await res.json() as { error: { type: string; code: string; message: string } };
      expect(body.error.type).to.equal('not_found_error');
      expect(body.error.code).to.equal('model_not_found');
      expect(body.error.message).to.include('sandbox/nope');
    });

    it('answers 404 for a model whose provider is not configured', async () => {
      expect((await fetch(`${gw.url}/v1/models/openai/gpt-4.1-mini`)).status).to.equal(404);
    });
  });
});

describe('discovery with a provider key set', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } }); });
  after(() => gw.close());

  it('lists the provider models once its key variable is set', async () => {
    const body = await (await fetch(`${gw.url}/v1/models`)).json() as { data: Card[] };
    expect(body.data.some((m) => m.id.startsWith('openai/'))).to.equal(true);
  });
});

describe('anonymous discovery rate limit', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { GATEWAY_DISCOVERY_RPM: '3' } }); });
  after(() => gw.close());

  it('answers 429 with an integer Retry-After >= 1 and the envelope past the threshold', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${gw.url}/v1/models`);
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(statuses.slice(0, 3)).to.deep.equal([200, 200, 200]);
    expect(limited, 'a 429 arrived').to.not.equal(undefined);
    const retryAfter = limited!.headers.get('retry-after');
    expect(retryAfter).to.match(/^\d+$/);
    expect(Number(retryAfter)).to.be.at.least(1);
    const body = await limited!.json() as { error: { type: string; code: string } };
    expect(body.error.type).to.equal('rate_limit_error');
    expect(body.error.code).to.equal('rate_limit_exceeded');
    expect((await fetch(`${gw.url}/v1/models/sandbox/echo-1`)).status).to.equal(429);
  });

  it('does not slow authenticated traffic', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
    }
  });
});
