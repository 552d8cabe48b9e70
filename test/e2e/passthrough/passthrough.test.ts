import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeProvider, type FakeProvider } from './support/fake-provider.js';
import { PROVIDER_KEYS, passthroughEnv, writePassthroughProject, type PassthroughKey } from './support/project.js';

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A raw request (path sent exactly as given: no client-side `..` resolution). */
function raw(url: string, path: string, key: string, method = 'GET'): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('e2e/passthrough: provider pass-through routes (http-proxy-middleware)', function () {
  this.timeout(30_000);
  const plain: PassthroughKey = { key: 'sk-pt-plain-0123456789', name: 'plain' };
  const budgeted: PassthroughKey = { key: 'sk-pt-budget-0123456789', name: 'budgeted', budget: { usd: 0.003, period: 'total' } };
  const anthropicOnly: PassthroughKey = { key: 'sk-pt-anthropic-only-0123', name: 'anthropic-only', providers: ['anthropic*'] };
  const twoPerMinute: PassthroughKey = { key: 'sk-pt-rpm-0123456789', name: 'rpm-2', rpm: 2 };
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let gw: TestGateway;

  before(async () => {
    openai = await startFakeProvider('openai', PROVIDER_KEYS.openai);
    anthropic = await startFakeProvider('anthropic', PROVIDER_KEYS.anthropic);
    const dead = `http://127.0.0.1:${await closedPort()}`;
    gw = await startGateway({ configPath: writePassthroughProject({ openai: openai.url, anthropic: anthropic.url, dead }, [plain, budgeted, anthropicOnly, twoPerMinute]), env: passthroughEnv });
  });
  after(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });

  it('runs a batch with the official openai SDK: upload, create, poll, download, with the provider key and the gateway request id', async () => {
    const client = new OpenAI({ apiKey: plain.key, baseURL: `${gw.url}/passthrough/openai/v1`, maxRetries: 0 });
    const before = openai.received.length;
    const lines = ['a', 'b'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: id }] } })).join('\n') + '\n';
    const file = await client.files.create({ file: await toFile(Buffer.from(lines), 'input.jsonl'), purpose: 'batch' });
    expect(file.id).to.match(/^file-/);
    expect(file.bytes).to.equal(Buffer.byteLength(lines));
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(created.status).to.equal('in_progress');
    let batch = await client.batches.retrieve(created.id);
    for (let i = 0; i < 5 && batch.status !== 'completed'; i++) batch = await client.batches.retrieve(created.id);
    expect(batch.status).to.equal('completed');
    const output = await (await client.files.content(batch.output_file_id!)).text();
    expect(output.trim().split('\n').map((l) => (JSON.parse(l) as { custom_id: string }).custom_id)).to.deep.equal(['a', 'b']);

    const seen = openai.received.slice(before);
    expect(seen.map((r) => `${r.method} ${r.url.split('?')[0]}`)).to.deep.equal([
      'POST /v1/files', 'POST /v1/batches', `GET /v1/batches/${created.id}`, `GET /v1/batches/${created.id}`, `GET /v1/files/${batch.output_file_id}/content`,
    ]);
    for (const r of seen) {
      expect(r.headers.authorization, 'the provider key replaces the client key').to.equal(`Bearer ${PROVIDER_KEYS.openai}`);
      expect(JSON.stringify(r.headers)).not.to.include(plain.key);
      expect(r.headers.host).to.equal(new URL(openai.url).host);
      expect(r.headers['x-request-id']).to.match(/^req_/);
    }
    // The gateway's request id reaches the provider and comes back; the provider's is kept beside it.
    const res = await fetch(`${gw.url}/passthrough/openai/v1/batches/${created.id}`, { headers: { authorization: `Bearer ${plain.key}` } });
    expect(res.status).to.equal(200);
    expect(openai.received.at(-1)!.headers['x-request-id']).to.equal(res.headers.get('x-request-id'));
    expect(res.headers.get('x-upstream-request-id')).to.match(/^req_upstream_/);
  });

  it('passes a streamed SSE answer byte for byte, which the Anthropic SDK reads', async () => {
    const res = await fetch(`${gw.url}/pt/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': plain.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'brand-new-beta-2026-11-28' },
      body: JSON.stringify({ model: 'claude-pt', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(anthropic.sse))).to.equal(true);
    expect(anthropic.received.at(-1)!.headers['x-api-key']).to.equal(PROVIDER_KEYS.anthropic);
    // The client's own beta header reaches the provider (a beta API on the day it ships).
    expect(anthropic.received.at(-1)!.headers['anthropic-beta']).to.equal('brand-new-beta-2026-11-28');
    expect(anthropic.received.at(-1)!.headers['anthropic-version']).to.equal('2023-06-01');

    const client = new Anthropic({ apiKey: plain.key, baseURL: `${gw.url}/pt/anthropic`, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-pt', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    stream.on('text', (t) => { text += t; });
    const final = await stream.finalMessage();
    expect(text).to.equal('Hello éè world');
    expect(final.usage.output_tokens).to.equal(3);
    // The shipped Anthropic route: token counting through the SDK.
    const shipped = new Anthropic({ apiKey: plain.key, baseURL: `${gw.url}/passthrough/anthropic`, maxRetries: 0 });
    const count = await shipped.messages.countTokens({ model: 'claude-pt', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).to.equal(11);
  });

  it("sends an api_key provider's key in its auth.header, never the type's default header (one credential mechanism)", async () => {
    const res = await fetch(`${gw.url}/pt/keyed/v1/messages/count_tokens`, {
      method: 'POST', headers: { authorization: `Bearer ${plain.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-pt', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(await res.json()).to.deep.equal({ input_tokens: 11 });
    const seen = anthropic.received.at(-1)!.headers;
    expect(seen['x-api-key']).to.equal(PROVIDER_KEYS.anthropic);
    expect(seen.authorization, 'no Authorization beside the configured header').to.equal(undefined);
  });

  it('streams a 2 MB upload: the provider receives bytes before the client has sent the rest', async () => {
    const total = 2 * 1024 * 1024;
    const half = Buffer.alloc(total / 2, 0x61);
    const u = new URL(gw.url);
    const heapBefore = process.memoryUsage().heapUsed;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: u.hostname, port: u.port, path: '/free/openai/v1/upload-sink', method: 'POST', headers: { authorization: `Bearer ${plain.key}`, 'content-type': 'application/octet-stream', 'content-length': String(total) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.write(half);
      // The second half goes only once the provider has seen most of the first: a proxy that
      // buffered the body would wait for the rest forever (the race below then fails).
      const reached = openai.uploadReached(total / 4);
      const timeout = new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the provider received nothing before the body was complete: buffered')), 5000));
      Promise.race([reached, timeout]).then(() => req.end(half), (e: Error) => { req.destroy(); reject(e); });
    });
    const r = await answer;
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.body)).to.deep.equal({ bytes: total });
    expect(process.memoryUsage().heapUsed - heapBefore, 'heap growth while 2 MB passed').to.be.below(total * 4);
  });

  it('refuses a key with a budget on a route without charge_usd, and charges exactly charge_usd on one with it', async () => {
    const refused = await fetch(`${gw.url}/free/openai/v1/files`, { headers: { authorization: `Bearer ${budgeted.key}` } });
    expect(refused.status).to.equal(403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('passthrough_not_billable');
    expect(body.error.message).to.include('charge_usd').and.to.include('budget');
    // Budget 0.003 total, charge 0.001: exactly three requests, whatever the provider answers.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${gw.url}/passthrough/openai/v1/files/file-missing`, { headers: { authorization: `Bearer ${budgeted.key}` } });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses).to.deep.equal([404, 404, 404, 402]);
    // A key without a budget may use the uncharged route.
    expect((await fetch(`${gw.url}/free/openai/v1/files/file-missing`, { headers: { authorization: `Bearer ${plain.key}` } })).status).to.equal(404);
  });

  it("refuses a key outside the provider allowlist, on pass-through routes and model calls", async () => {
    const r = await fetch(`${gw.url}/passthrough/openai/v1/files`, { headers: { authorization: `Bearer ${anthropicOnly.key}` } });
    expect(r.status).to.equal(403);
    expect(((await r.json()) as { error: { code: string } }).error.code).to.equal('provider_not_allowed');
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${anthropicOnly.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-pt', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).to.equal(403);
    expect(((await chat.json()) as { error: { code: string } }).error.code).to.equal('provider_not_allowed');
    const client = new Anthropic({ apiKey: anthropicOnly.key, baseURL: `${gw.url}/passthrough/anthropic`, maxRetries: 0 });
    expect((await client.messages.countTokens({ model: 'claude-pt', messages: [{ role: 'user', content: 'hi' }] })).input_tokens).to.equal(11);
  });

  it('answers an upstream that hangs with 504 within the provider deadline, and an unreachable one with 502, in the route envelope', async () => {
    const started = performance.now();
    const hung = await fetch(`${gw.url}/pt/slow/v1/hang`, { headers: { authorization: `Bearer ${plain.key}` } });
    const elapsed = performance.now() - started;
    expect(hung.status).to.equal(504);
    expect(((await hung.json()) as { error: { code: string } }).error.code).to.equal('upstream_timeout');
    expect(elapsed).to.be.within(250, 2500);
    const dead = await fetch(`${gw.url}/pt/dead/v1/models`, { headers: { 'x-api-key': plain.key } });
    expect(dead.status).to.equal(502);
    const body = (await dead.json()) as { type: string; error: { type: string } };
    expect(body.type, 'messages envelope').to.equal('error');
  });

  it('refuses paths outside the allow list, including .. and %2e%2e escapes, before anything is sent', async () => {
    const before = openai.received.length;
    for (const path of [
      '/passthrough/openai/v1/chat/completions',
      '/passthrough/openai/v1/batches/../../v1/chat/completions',
      '/passthrough/openai/v1/batches/%2e%2e/%2E%2E/v1/models',
      '/passthrough/openai/v1/files/%2e%2e/%2e%2e/%2e%2e/admin/keys',
      '/passthrough/openai/../../../etc/passwd',
    ]) {
      const r = await raw(gw.url, path, plain.key);
      expect(r.status, path).to.equal(403);
      expect((JSON.parse(r.body) as { error: { code: string } }).error.code, path).to.equal('passthrough_path_not_allowed');
    }
    // The gateway reads %2F as / (front step): the escape is resolved like any `..`.
    const encodedSlash = await raw(gw.url, '/passthrough/openai/v1/batches%2f..%2f..%2fadmin', plain.key);
    expect(encodedSlash.status, encodedSlash.body).to.equal(403);
    for (const path of ['/passthrough/openai/v1/batches/%e0%80', '/passthrough/openai/v1/batches/a%00b', '/passthrough/openai/v1/batches/..%5c..%5cadmin']) {
      const bad = await raw(gw.url, path, plain.key);
      expect(bad.status, path).to.equal(400);
    }
    expect(openai.received.length, 'nothing reached the provider').to.equal(before);
    // Duplicate slashes and dots that stay inside the list are normalised, and sent normalised.
    const ok = await raw(gw.url, '/passthrough/openai//v1//files/./x/../file-missing', plain.key);
    expect(ok.status).to.equal(404);
    expect(openai.received.at(-1)!.url).to.equal('/v1/files/file-missing');
  });

  it("applies the key's rpm to pass-through requests", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${gw.url}/passthrough/openai/v1/files/file-missing`, { headers: { authorization: `Bearer ${twoPerMinute.key}` } });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses).to.deep.equal([404, 404, 429]);
  });

  it('keeps static sibling paths and the gateway key check in front of a wildcard route', async () => {
    const health = await fetch(`${gw.url}/passthrough/openai/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const anonymous = await fetch(`${gw.url}/passthrough/openai/v1/files`);
    expect(anonymous.status).to.equal(401);
    const wrongMethod = await fetch(`${gw.url}/passthrough/openai/v1/files`, { method: 'PUT', headers: { authorization: `Bearer ${plain.key}` } });
    expect(wrongMethod.status).to.equal(405);
  });
});
