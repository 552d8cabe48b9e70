import { expect } from 'chai';
import OpenAI from 'openai';
import type { KitUpstream } from '../kit/fake-upstream.js';
import { ACME_MODEL, ADMIN_KEY, AFTER_FIRST_WORD, CLIENT_KEY, startAcmeUpstream, startObserved, UPSTREAM_KEY, YAML_ADMIN_KEY, type ObservedGateway } from './support.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('observability: access log', () => {
  let fake: KitUpstream;
  let gw: ObservedGateway;
  let client: OpenAI;
  before(async () => {
    fake = await startAcmeUpstream();
    gw = await startObserved({ fake });
    client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });
  afterEach(() => {
    expect(fake.violations, 'requests the provider would have refused').to.deep.equal([]);
  });

  it('writes one line per request with every field, an ISO time and the level by name', async () => {
    const started = Date.now();
    const { response } = await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const id = response.headers.get('x-request-id')!;
    expect(id).to.match(/^req_[0-9a-f]{32}$/);
    const line = await gw.requestLine(id);
    expect(gw.lines.filter((l) => l.request_id === id)).to.have.length(1);
    expect(line.level).to.equal('info');
    expect(line.time).to.match(ISO_TIME);
    expect(Date.parse(String(line.time))).to.be.within(started - 1000, Date.now() + 1000);
    expect(line).to.deep.include({
      msg: 'request', request_id: id, method: 'POST', path: '/v1/chat/completions', route: 'chat-completions.yaml',
      operation: 'chat.completions', status: 200, model: ACME_MODEL, provider: 'acme', key_id: 'env-1', streamed: false,
      tokens: { input: 11, output: 6, cached_input: 0, cache_write_input: 0, reasoning: 0, estimated: false }, client_aborted: false,
    });
    expect(line.cost_usd).to.be.closeTo(0.000023, 1e-12);
    expect(line.attempts).to.be.a('number');
    expect(line.ttfb_ms).to.be.a('number').and.to.be.at.least(0);
    expect(line.duration_ms).to.be.a('number').and.to.be.at.least(line.ttfb_ms as number);
  });

  it('writes the line of a stream after its last byte, with its tokens, cost and first-byte time', async () => {
    const stream = await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }, { headers: { 'x-request-id': 'obs-log-stream-1' } });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).to.equal('Hello from the fake upstream.');
    const line = await gw.requestLine('obs-log-stream-1');
    expect(line).to.deep.include({ level: 'info', status: 200, streamed: true, model: ACME_MODEL, client_aborted: false, tokens: { input: 11, output: 6, cached_input: 0, cache_write_input: 0, reasoning: 0, estimated: false } });
    expect(line.cost_usd).to.be.closeTo(0.000023, 1e-12);
    expect(line.ttfb_ms).to.be.a('number');
    expect(line.duration_ms).to.be.at.least(line.ttfb_ms as number);
  });

  it('logs the status the client got and its error code for a refused request', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-request-id': 'obs-log-400' }, body: JSON.stringify({ model: ACME_MODEL }) });
    expect(res.status).to.equal(400);
    const line = await gw.requestLine('obs-log-400');
    expect(line).to.deep.include({ level: 'info', status: 400, error_code: 'validation_failed', key_id: 'env-1', route: 'chat-completions.yaml' });
  });

  it('logs an upstream failure at error level with the status the client got', async () => {
    fake.enqueue({ status: 500, errorBody: { error: { message: 'boom', type: 'server_error', code: null } } });
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-request-id': 'obs-log-5xx' }, body: JSON.stringify({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).to.be.at.least(500);
    const line = await gw.requestLine('obs-log-5xx');
    expect(line).to.deep.include({ level: 'error', status: res.status, model: ACME_MODEL, provider: 'acme' });
    expect(line.error_code).to.be.a('string');
  });

  it('gives an unknown-path 404 a request id and a line', async () => {
    const res = await fetch(`${gw.url}/v1/nothing/here`);
    expect(res.status).to.equal(404);
    const id = res.headers.get('x-request-id')!;
    expect(id).to.be.a('string');
    const line = await gw.requestLine(id);
    expect(line).to.deep.include({ level: 'info', status: 404, path: '/v1/nothing/here', error_code: 'route_not_found' });
    expect(line.route).to.equal(undefined);
  });

  it('logs a client that went away mid-stream as an info event, not an error', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    fake.enqueue({ holdUntil: held, holdAfterEvents: AFTER_FIRST_WORD });
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-request-id': 'obs-log-abort' },
      body: JSON.stringify({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const line = await gw.requestLine('obs-log-abort');
    release();
    expect(line).to.deep.include({ level: 'info', client_aborted: true, streamed: true });
    const errors = gw.lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    expect(errors.filter((l) => JSON.stringify(l).includes('obs-log-abort'))).to.deep.equal([]);
  });

  it('logs a client that went away while the upstream was still thinking as an info event, not an error', async () => {
    fake.enqueue({ hang: true });
    const before = fake.requests.length;
    const abort = new AbortController();
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-request-id': 'obs-log-abort-early' },
      body: JSON.stringify({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    }).catch((e: Error) => e);
    // Abort once the upstream holds the call.
    while (fake.requests.length === before) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect(await pending).to.be.instanceOf(Error);
    const line = await gw.requestLine('obs-log-abort-early');
    expect(line).to.deep.include({ level: 'info', client_aborted: true, model: ACME_MODEL });
    await new Promise((r) => setTimeout(r, 100));
    const errors = gw.lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    expect(errors.filter((l) => JSON.stringify(l).includes('obs-log-abort-early'))).to.deep.equal([]);
  });

  it('names the admin key that scraped /metrics and never writes a key or the upstream secret', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': YAML_ADMIN_KEY, 'x-request-id': 'obs-log-metrics' } });
    expect(res.status).to.equal(200);
    const line = await gw.requestLine('obs-log-metrics');
    // Admin keys are told apart from client keys of the same name in the log and the ledger.
    expect(line).to.deep.include({ key_id: 'admin:ops-yaml', route: 'metrics.yaml', status: 200 });
    const all = gw.raw.join('\n');
    for (const secret of [CLIENT_KEY, ADMIN_KEY, YAML_ADMIN_KEY, UPSTREAM_KEY]) expect(all).not.to.include(secret);
    expect(gw.lines.every((l) => typeof l.level === 'string' && ISO_TIME.test(String(l.time)))).to.equal(true);
  });
});
