/**
 * Pass-through routes to cloud providers (issue 31): the provider's own credentials of every
 * auth type, on fakes that check them for real. Bedrock (`auth: aws`): the fake runtime
 * recomputes each SigV4 signature from the bytes it received, so a body sent other than signed
 * is refused; bodies over `max_signed_body_bytes` are refused before anything is sent. Vertex
 * (`auth: google`): tokens from the fake Google token endpoint (service-account JWT). Azure
 * (`auth: azure`): the resource `api-key`, and Entra ID tokens from the fake authority (in a
 * gateway process that trusts its certificate). Each answer streams through; the client's key
 * never reaches a provider.
 */
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { forgetSharedCredentials } from '../../../src/providers/auth/cached-credential.js';
import { decodeEventStream } from '../../kit/bedrock/event-stream-frames.js';
import { startFakeBedrock, type FakeBedrock } from '../../kit/bedrock/fake-bedrock.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { ACCESS_KEY_ID, SECRET } from '../bedrock/support.js';
import { startAzureFront, type AzureFront } from '../cloud/support/azure-front.js';
import { APP, AZURE_KEY, spawnEntraGateway } from '../cloud/support/azure-rig.js';
import { startEntraServer, type EntraServer } from '../cloud/support/entra-server.js';
import { makeServiceAccount, startGoogleTokenServer, type GoogleTokenServer, type ServiceAccount } from '../cloud/support/google-token-server.js';
import { startVertexFront, type VertexFront } from '../cloud/support/vertex-front.js';
import { SMALL_SIGNED_BODY, writeCloudPassthroughProject } from './support/cloud-project.js';

const PROJECT = 'gw-pt-project';
const CLAUDE = 'anthropic.claude-sonnet-5-5-v1:0';
const ANSWER = 'The capital of France is Paris.';

/** A raw request: the body written in the given pieces (chunked when `chunked`, else with its length). */
function raw(url: string, path: string, key: string, method: string, pieces: Buffer[], chunked: boolean): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(total) }) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    for (const p of pieces) req.write(p);
    req.end();
  });
}

/** The text of a streamed answer: `pick` reads one SSE data object's text. */
function sseText(body: string, pick: (event: Record<string, unknown>) => string | undefined): string {
  return body.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => pick(JSON.parse(l.slice(6)) as Record<string, unknown>) ?? '').join('');
}
const geminiText = (e: Record<string, unknown>) => (e.candidates as Array<{ content?: { parts?: Array<{ text?: string }> } }> | undefined)?.[0]?.content?.parts?.map((p) => p.text ?? '').join('');
const chatText = (e: Record<string, unknown>) => (e.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content;

/** A streamed Chat Completions request through the Azure pass-through route. */
function azureStream(gw: TestGateway): Promise<Response> {
  return fetch(`${gw.url}/passthrough/azure/openai/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'api-key': 'a-key-the-client-made-up' },
    body: JSON.stringify({ model: 'gpt-6.1-terra', stream: true, messages: [{ role: 'user', content: 'What is the capital of France?' }] }),
  });
}

describe('e2e/passthrough: cloud credentials on pass-through routes (aws, google, azure)', function () {
  this.timeout(60_000);
  let bedrock: FakeBedrock;
  let sa: ServiceAccount;
  let tokens: GoogleTokenServer;
  let gemini: KitUpstream;
  let anthropic: KitUpstream;
  let openai: KitUpstream;
  let vertex: VertexFront;
  let entra: EntraServer;
  let azure: AzureFront;
  let project: string;
  let gw: TestGateway;

  before(async () => {
    forgetSharedCredentials();
    bedrock = await startFakeBedrock();
    bedrock.issue(ACCESS_KEY_ID, SECRET);
    sa = makeServiceAccount(PROJECT);
    [tokens, gemini, anthropic, openai, entra] = await Promise.all([
      startGoogleTokenServer(sa),
      startKitUpstream('gemini', 'kit-gemini-key-pt01', { dialects: ['gemini'] }),
      startKitUpstream('anthropic', 'sk-ant-kit-pt02', { dialects: ['anthropic-messages'] }),
      startKitUpstream('openai', 'sk-kit-azure-pt03', { dialects: ['openai-chat'] }),
      startEntraServer(APP),
    ]);
    vertex = await startVertexFront({ project: PROJECT, accepts: (t) => tokens.accepts(t), gemini, anthropic });
    azure = await startAzureFront({ apiKey: AZURE_KEY, acceptsToken: (t) => entra.accepts(t), openai });
    project = writeCloudPassthroughProject();
    gw = await startGateway({
      configPath: project,
      env: {
        BEDROCK_RUNTIME_URL: bedrock.url, AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: 'us-east-1',
        GOOGLE_CLOUD_PROJECT: PROJECT, VERTEX_BASE_URL: vertex.url, GOOGLE_APPLICATION_CREDENTIALS: sa.file, GOOGLE_TOKEN_URL: tokens.url,
        AZURE_OPENAI_ENDPOINT: azure.url, AZURE_OPENAI_API_KEY: AZURE_KEY,
      },
    });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([bedrock?.close(), vertex?.close(), azure?.close(), tokens?.close(), entra?.close(), gemini?.close(), anthropic?.close(), openai?.close()]);
    sa?.remove();
    forgetSharedCredentials();
  });
  beforeEach(() => {
    bedrock.reset();
    vertex.reset();
    azure.reset();
  });
  afterEach(() => {
    expect(bedrock.refusals, 'requests the fake Bedrock refused for their signature').to.deep.equal([]);
    expect(vertex.violations, 'requests Vertex would refuse').to.deep.equal([]);
    expect(azure.violations, 'requests Azure would refuse').to.deep.equal([]);
    expect(vertex.unauthenticated + azure.unauthenticated, 'calls refused for their credentials').to.equal(0);
    expect([...gemini.violations, ...anthropic.violations, ...openai.violations], 'requests the APIs would refuse').to.deep.equal([]);
  });

  describe('Bedrock (auth: aws, SigV4)', () => {
    it('signs the forwarded body (the fake recomputes the signature from the bytes it got), with the model id as sent, never the client key', async () => {
      const sent = { messages: [{ role: 'user', content: [{ text: 'hi' }] }], inferenceConfig: { maxTokens: 20 } };
      const res = await fetch(`${gw.url}/passthrough/bedrock/model/${CLAUDE}/converse`, {
        method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(sent),
      });
      expect(res.status, await res.clone().text()).to.equal(200);
      const answer = (await res.json()) as { output: { message: { content: Array<{ text: string }> } } };
      expect(answer.output.message.content[0]!.text).to.equal(`Hello from ${CLAUDE}.`);
      const seen = bedrock.requests.at(-1)!;
      expect(seen).to.include({ operation: 'converse', modelId: CLAUDE, accessKeyId: ACCESS_KEY_ID, region: 'us-east-1' });
      expect(seen.body).to.deep.equal(sent);
      expect(String(seen.headers.authorization)).to.match(/^AWS4-HMAC-SHA256 Credential=/);
      expect(JSON.stringify(seen.headers), 'the client key').not.to.include(gw.key);
    });

    it('signs a chunked body (no declared length) and a GET without a body (the empty hash), query included', async () => {
      const body = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'in pieces' }] }] }));
      const chunked = await raw(gw.url, `/passthrough/bedrock/model/${CLAUDE}/converse`, gw.key, 'POST', [body.subarray(0, 10), body.subarray(10)], true);
      expect(chunked.status, chunked.body).to.equal(200);
      expect(bedrock.requests.at(-1)!.headers['content-length'], 'sent with its length: the bytes signed').to.equal(String(body.length));
      const list = await fetch(`${gw.url}/passthrough/bedrock/async-invoke?maxResults=5&statusEquals=Completed`, { headers: { authorization: `Bearer ${gw.key}` } });
      expect(list.status, await list.clone().text()).to.equal(200);
      expect(await list.json()).to.deep.equal({ asyncInvokeSummaries: [] });
    });

    it('passes a streamed InvokeModelWithResponseStream answer through as AWS event-stream frames', async () => {
      const res = await fetch(`${gw.url}/passthrough/bedrock/model/${CLAUDE}/invoke-with-response-stream`, {
        method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/vnd.amazon.eventstream');
      const frames = decodeEventStream(Buffer.from(await res.arrayBuffer()));
      expect(frames.length).to.be.above(2);
      expect(new Set(frames.map((f) => f.headers[':event-type']))).to.deep.equal(new Set(['chunk']));
      const events = frames.map((f) => JSON.parse(Buffer.from((JSON.parse(f.body) as { bytes: string }).bytes, 'base64').toString('utf8')) as { type: string; delta?: { text?: string } });
      expect(events.map((e) => e.delta?.text ?? '').join('')).to.equal(`Hello from ${CLAUDE}.`);
      expect(events.at(-1)!.type).to.equal('message_stop');
    });

    it(`refuses a body over max_signed_body_bytes (${SMALL_SIGNED_BODY}) with 413 in the route envelope before anything is sent, declared or chunked`, async () => {
      const body = (size: number) => Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x'.repeat(size - 60) }] }] }));
      const fits = body(SMALL_SIGNED_BODY);
      expect(fits.length).to.be.at.most(SMALL_SIGNED_BODY);
      const ok = await raw(gw.url, `/pt/bedrock-small/model/${CLAUDE}/converse`, gw.key, 'POST', [fits], false);
      expect(ok.status, ok.body).to.equal(200);
      const before = bedrock.requests.length;
      const large = body(4 * SMALL_SIGNED_BODY);
      for (const chunked of [false, true]) {
        const r = await raw(gw.url, `/pt/bedrock-small/model/${CLAUDE}/converse`, gw.key, 'POST', chunked ? [large.subarray(0, 700), large.subarray(700)] : [large], chunked);
        expect(r.status, r.body).to.equal(413);
        const answer = JSON.parse(r.body) as { type: string; error: { type: string; message: string } };
        expect(answer.type, 'the messages envelope').to.equal('error');
        expect(answer.error.message).to.include('max_signed_body_bytes').and.to.include(String(SMALL_SIGNED_BODY));
      }
      expect(bedrock.requests.length, 'nothing reached Bedrock').to.equal(before);
    });
  });

  describe('Vertex (auth: google)', () => {
    it('sends the cached access token (fetched once), drops client key headers, and streams the answer', async () => {
      const issuedBefore = tokens.issued;
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${gw.url}/passthrough/vertex/v1/projects/${PROJECT}/locations/us-central1/publishers/google/models/gemini-3.8-flash:streamGenerateContent?alt=sse`, {
          method: 'POST',
          // A client's own x-goog-api-key never goes beside the token (the fake Vertex refuses that).
          headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'x-goog-api-key': 'a-key-the-client-made-up' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }] }),
        });
        expect(res.status, await res.clone().text()).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
        expect(sseText(await res.text(), geminiText)).to.equal(ANSWER);
      }
      expect(tokens.issued - issuedBefore, 'one token for both calls (at most one, if warm-up fetched it)').to.be.at.most(1);
      const call = vertex.calls.at(-1)!;
      expect(call).to.include({ project: PROJECT, publisher: 'google', model: 'gemini-3.8-flash', method: 'streamGenerateContent' });
      expect(String(call.headers.authorization)).to.match(/^Bearer /);
      expect(JSON.stringify(call.headers), 'the client key').not.to.include(gw.key);
    });
  });

  describe('Azure (auth: azure)', () => {
    it('sends the resource api-key (no Authorization) and streams the answer', async () => {
      const res = await azureStream(gw);
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(sseText(await res.text(), chatText)).to.equal(ANSWER);
      const call = azure.calls.at(-1)!;
      expect(call.auth).to.equal('api-key');
      expect(call.headers['api-key']).to.equal(AZURE_KEY);
      expect(call.headers.authorization).to.equal(undefined);
      expect(JSON.stringify(call.headers), 'the client key').not.to.include(gw.key);
    });

    it('sends an Entra ID token when no api-key is configured (a gateway process trusting the fake authority)', async () => {
      const entraGw = await spawnEntraGateway(entra, azure, {}, project);
      try {
        for (let i = 0; i < 2; i++) {
          const res = await azureStream(entraGw);
          expect(res.status, await res.clone().text()).to.equal(200);
          expect(sseText(await res.text(), chatText)).to.equal(ANSWER);
        }
        const call = azure.calls.at(-1)!;
        expect(call.auth).to.equal('entra');
        expect(call.headers['api-key'], 'the client\'s made-up api-key was dropped').to.equal(undefined);
        expect(JSON.stringify(call.headers), 'the client key').not.to.include(entraGw.key);
        expect(entra.refusals).to.deep.equal([]);
        expect(entra.issued, 'one token, cached').to.equal(1);
      } finally {
        await entraGw.close();
      }
    });
  });
});
