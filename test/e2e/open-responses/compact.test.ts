/**
 * POST /v1/responses/compact (Open Responses `compactResponse`): passed through to an OpenAI
 * Responses API upstream (its wire format checked by the fake against OpenAI's OpenAPI
 * operation), the answer valid against the Open Responses `CompactResource`, metered like any
 * call; a model without the operation gets a clear 400. And the route table: the `:id` route
 * beside it no longer swallows the static path (GET of it is a 405 naming POST).
 */
import { expect } from 'chai';
import { openResponsesValidator } from '../../helpers/openapi.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { FAKE_KEYS } from '../../kit/text-deployments.js';

const MODEL = 'openai-responses/gpt-6.2-sol';

describe('POST /v1/responses/compact', () => {
  let upstream: KitUpstream;
  let gw: TestGateway;
  before(async () => {
    upstream = await startKitUpstream('openai', FAKE_KEYS.openai, { dialects: ['openai-responses', 'openai-responses-compact'] });
    gw = await startGateway({ env: { OPENAI_API_KEY: upstream.apiKey, OPENAI_BASE_URL: `${upstream.url}/v1` } });
  });
  after(async () => {
    await gw?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.reset());
  afterEach(() => expect(upstream.violations, 'requests OpenAI would have rejected').to.deep.equal([]));

  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('passes the conversation through to OpenAI and answers its response.compaction object, with the cost', async () => {
    const input = [
      { role: 'user', content: 'Create a simple landing page for a dog petting cafe.' },
      { id: 'msg_001', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Here is a page.' }] },
    ];
    const res = await post('/v1/responses/compact', { model: MODEL, input, instructions: 'Keep the goals.' });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(openResponsesValidator('CompactResource')(body)).to.deep.equal([]);
    expect(body.object).to.equal('response.compaction');
    expect((body.output as Array<{ type: string }>).at(-1)!.type).to.equal('compaction');
    const sent = upstream.last('openai-responses-compact').body;
    expect(sent).to.deep.equal({ model: 'gpt-6.2-sol', input, instructions: 'Keep the goals.' });
    // 139 prompt tokens at $0.000002 + 438 completion tokens at $0.00001.
    expect(Number(res.headers.get('x-gateway-cost'))).to.be.closeTo(139 * 0.000002 + 438 * 0.00001, 1e-9);
  });

  it('answers 400 unsupported_operation for a model that cannot compact', async () => {
    const res = await post('/v1/responses/compact', { model: 'anthropic/claude-sonnet-5-5', input: 'hello' });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('unsupported_operation');
    expect(body.error.message).to.include('/v1/responses/compact');
    expect(upstream.requests).to.have.length(0);
  });

  it('is not swallowed by GET /v1/responses/:id: a GET of it is a 405 naming POST', async () => {
    const res = await fetch(`${gw.url}/v1/responses/compact`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('POST');
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('method_not_allowed');
    // With a trailing slash the request goes through the router, not the exact-path table.
    const slashed = await post('/v1/responses/compact/', { model: 'anthropic/claude-sonnet-5-5', input: 'x' });
    expect(slashed.status).to.equal(400);
    expect(((await slashed.json()) as { error: { code: string } }).error.code).to.equal('unsupported_operation');
  });

  it('the sandbox makes a gateway compaction that continues the conversation on any model', async () => {
    const input = [
      { role: 'user', content: 'My name is Alice.' },
      { type: 'message', role: 'assistant', content: 'Hello Alice!' },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'found' },
    ];
    const res = await post('/v1/responses/compact', { model: 'sandbox/echo-1', input });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { output: Array<Record<string, unknown>> };
    expect(openResponsesValidator('CompactResource')(body)).to.deep.equal([]);
    expect(body.output.map((item) => item.type)).to.deep.equal(['message', 'compaction']);
    expect(Number(res.headers.get('x-gateway-cost'))).to.be.at.least(0);
    // Sent back as input, the compaction unfolds into what it folded: the sandbox sees the tool result.
    const next = await post('/v1/responses', { model: 'sandbox/echo-1', input: [...body.output, { role: 'user', content: 'And now?' }] });
    expect(next.status).to.equal(200);
    expect(((await next.json()) as { status: string }).status).to.equal('completed');
    // An OpenAI compaction item cannot be unfolded by the gateway: a clear 400.
    const foreign = await post('/v1/responses', { model: 'sandbox/echo-1', input: [{ type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAB-openai' }, { role: 'user', content: 'hi' }] });
    expect(foreign.status).to.equal(400);
    expect(((await foreign.json()) as { error: { code: string; message: string } }).error.message).to.match(/made by OpenAI/);
  });

  it('leaves every other id to GET /v1/responses/:id', async () => {
    const res = await fetch(`${gw.url}/v1/responses/resp_never_stored`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.not.equal('method_not_allowed');
  });
});
