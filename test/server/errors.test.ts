import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

interface ErrorBody { error: { message: string; type: string; code: string | null; details?: Record<string, unknown> } }

describe('error handling', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway(); });
  after(() => gw.close());

  const post = (path: string, body: string | Blob, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers }, body });

  async function expectError(res: Response, status: number, type: string, code: string): Promise<ErrorBody> {
    expect(res.status).to.equal(status);
    const body = await res.json() as ErrorBody;
    expect(body.error.type).to.equal(type);
    expect(body.error.code).to.equal(code);
    expect(body.error.message).to.be.a('string').and.not.match(/\n\s+at /);
    return body;
  }

  it('answers 404 route_not_found for an unknown path', async () => {
    await expectError(await fetch(`${gw.url}/v1/nope`), 404, 'not_found_error', 'route_not_found');
  });
  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`);
    expect(res.headers.get('allow')).to.equal('POST');
    await expectError(res, 405, 'invalid_request_error', 'method_not_allowed');
  });
  it('answers 400 malformed_json for a body that is not JSON', async () => {
    await expectError(await post('/v1/chat/completions', '{"model": '), 400, 'invalid_request_error', 'malformed_json');
  });
  it('answers 400 malformed_json in the messages envelope on /v1/messages', async () => {
    const res = await post('/v1/messages', '[1,');
    expect(res.status).to.equal(400);
    const body = await res.json() as { type: string; error: { type: string } };
    expect(body.type).to.equal('error');
    expect(body.error.type).to.equal('invalid_request_error');
  });
  it('refuses a __proto__ key, spelled plainly or with escapes, as 400 malformed_json (prototype poisoning)', async () => {
    const chat = { model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'x' }] };
    await expectError(await post('/v1/chat/completions', JSON.stringify(chat).replace('{', '{"__proto__":{"admin":true},')), 400, 'invalid_request_error', 'malformed_json');
    await expectError(await post('/v1/chat/completions', JSON.stringify(chat).replace('{', '{"\\u005f_proto__":{"admin":true},')), 400, 'invalid_request_error', 'malformed_json');
    // The same words inside a string value are just text.
    const ok = await post('/v1/chat/completions', JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'what is "__proto__" in \\u0041 JS?' }] }));
    expect(ok.status).to.equal(200);
  });
  it('answers 400 malformed_json for JSON whose top level is not an object or array', async () => {
    await expectError(await post('/v1/chat/completions', '"hello"'), 400, 'invalid_request_error', 'malformed_json');
    await expectError(await post('/v1/chat/completions', '42'), 400, 'invalid_request_error', 'malformed_json');
  });
  it('reads a body with a UTF-8 byte order mark, and a gzip-compressed body', async () => {
    const chat = JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'héllo' }] });
    const bom = await post('/v1/chat/completions', new Blob([new Uint8Array([0xef, 0xbb, 0xbf]), chat]));
    expect(bom.status).to.equal(200);
    const gzipped = await post('/v1/chat/completions', new Blob([gzipSync(chat)]), { 'content-encoding': 'gzip' });
    expect(gzipped.status).to.equal(200);
    expect(((await gzipped.json()) as { model: string }).model).to.equal('sandbox/echo-1');
  });
  it('reads deflate and br bodies too, and names the encoding it cannot read (415) or a body that does not decompress (400)', async () => {
    const chat = JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'héllo' }] });
    for (const [encoding, bytes] of [['deflate', deflateSync(chat)], ['br', brotliCompressSync(chat)], ['GZIP', gzipSync(chat)]] as const) {
      const res = await post('/v1/chat/completions', new Blob([bytes]), { 'content-encoding': encoding });
      expect(res.status, encoding).to.equal(200);
      expect(((await res.json()) as { model: string }).model).to.equal('sandbox/echo-1');
    }
    const zstd = await expectError(await post('/v1/chat/completions', new Blob([gzipSync(chat)]), { 'content-encoding': 'zstd' }), 415, 'invalid_request_error', 'unsupported_media_type');
    expect(zstd.error.message).to.include("'zstd'");
    const corrupt = new Uint8Array(gzipSync(chat));
    corrupt.fill(0x55, 12, 40);
    await expectError(await post('/v1/chat/completions', new Blob([corrupt]), { 'content-encoding': 'gzip' }), 400, 'invalid_request_error', 'invalid_request');
  });
  it('answers 413 for a compressed body that inflates past limits.body_bytes (a small gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(30 * 1024 * 1024, 0x20));
    expect(bomb.length).to.be.below(100 * 1024);
    await expectError(await post('/v1/chat/completions', new Blob([bomb]), { 'content-encoding': 'gzip' }), 413, 'invalid_request_error', 'request_too_large');
  });
  it('answers 413 for a chunked body (no Content-Length) that grows past limits.body_bytes', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 30) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'invalid_request_error', 'request_too_large');
  });
  it('answers 413 request_too_large past limits.body_bytes', async () => {
    const big = new Blob([new Uint8Array(26 * 1024 * 1024).fill(0x61)]);
    const res = await post('/v1/embeddings', big).catch(() => undefined);
    // The server may close the socket after answering; a 413 must be what it answered.
    if (res) await expectError(res, 413, 'invalid_request_error', 'request_too_large');
    const declared = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sandbox/embed-1', input: 'x'.repeat(26 * 1024 * 1024) }) });
    await expectError(declared, 413, 'invalid_request_error', 'request_too_large');
  });
  it('answers 415 for a content type the route does not accept', async () => {
    await expectError(await post('/v1/chat/completions', 'hello', { 'content-type': 'text/plain' }), 415, 'invalid_request_error', 'unsupported_media_type');
  });
  it('answers 400 model_not_found for an unknown model', async () => {
    const body = await expectError(await post('/v1/chat/completions', JSON.stringify({ model: 'sandbox/nope', messages: [{ role: 'user', content: 'x' }] })), 400, 'invalid_request_error', 'model_not_found');
    expect(body.error.message).to.include('sandbox/nope');
  });
  it('answers 400 unsupported_operation when the model does not serve the endpoint', async () => {
    await expectError(await post('/v1/embeddings', JSON.stringify({ model: 'sandbox/echo-1', input: 'x' })), 400, 'invalid_request_error', 'unsupported_operation');
  });
  it('answers 400 provider_not_configured naming the missing variable', async () => {
    const body = await expectError(await post('/v1/chat/completions', JSON.stringify({ model: 'anthropic/claude-sonnet-5-5', messages: [{ role: 'user', content: 'x' }] })), 400, 'invalid_request_error', 'provider_not_configured');
    expect(body.error.message).to.include('ANTHROPIC_API_KEY');
  });
  it('names the field and rule of a schema violation, with details', async () => {
    const body = await expectError(await post('/v1/chat/completions', JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'x' }], temperature: 3 })), 400, 'invalid_request_error', 'validation_failed');
    expect(body.error.message).to.include('temperature');
    expect(body.error.details?.errors).to.be.an('array').that.is.not.empty;
  });
  it('gives every response a request id', async () => {
    const res = await fetch(`${gw.url}/v1/models`);
    expect(res.headers.get('x-request-id')).to.match(/^req_/);
  });
});

describe('request bodies without a Content-Type', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway(); });
  after(() => gw.close());

  it('reads them as JSON', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ model: 'sandbox/embed-1', input: 'hello', dimensions: 4 }));
    const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: new Blob([body]) });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { data: Array<{ embedding: number[] }> }).data[0]!.embedding).to.have.length(4);
  });
});

describe('GET /healthz', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { GATEWAY_DISCOVERY_RPM: '1' } }); });
  after(() => gw.close());

  it('answers ok anonymously, never rate limited and never cached', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gw.url}/healthz`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(await res.json()).to.deep.equal({ status: 'ok' });
    }
  });
});
