import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import OpenAI from 'openai';
import { resolveTracesUrl } from '../../src/observability/tracing.js';
import type { KitUpstream } from '../kit/fake-upstream.js';
import { ACME_MODEL, CLIENT_KEY, startAcmeUpstream, startObserved } from './support.js';

/** A span as OTLP/JSON carries it, with its attributes flattened. */
interface ReceivedSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: Record<string, unknown>; events: Array<{ name: string }>; status?: { code?: number }; service?: unknown }

/** An in-process OTLP/HTTP (JSON) traces receiver. */
async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; paths: string[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, 'attributes'> & { attributes: OtlpAttribute[] }> }> }> };
      for (const rs of body.resourceSpans) {
        const service = flatten(rs.resource.attributes)['service.name'];
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, attributes: flatten(s.attributes), service });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type OtlpAttribute = { key: string; value: Record<string, unknown> };
function flatten(attributes: OtlpAttribute[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of attributes) {
    const v = a.value;
    out[a.key] = 'intValue' in v ? Number(v.intValue) : 'doubleValue' in v ? v.doubleValue : 'boolValue' in v ? v.boolValue : v.stringValue;
  }
  return out;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('observability: tracing', () => {
  let fake: KitUpstream;
  before(async () => { fake = await startAcmeUpstream(); });
  after(() => fake.close());

  describe('with observability.tracing.otlp_endpoint', () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let server: ReceivedSpan;
    let upstream: ReceivedSpan;
    let sentTraceparent: string;
    before(async () => {
      receiver = await startReceiver();
      fake.reset();
      const gw = await startObserved({ fake, observability: { tracing: { otlp_endpoint: receiver.url, service_name: 'gw-under-test' } } });
      const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, 'x-request-id': 'obs-trace-1' } });
      sentTraceparent = String(fake.requests.at(-1)!.headers.traceparent);
      // Closing the gateway flushes the batch of spans to the receiver.
      await gw.close();
      server = receiver.spans.find((s) => s.kind === 2)!;
      upstream = receiver.spans.find((s) => s.kind === 3)!;
    });
    after(() => receiver.close());

    it('exports over OTLP/HTTP JSON to <endpoint>/v1/traces with the configured service name', () => {
      expect(receiver.paths[0]).to.match(/^POST \/v1\/traces application\/json/);
      expect(server.service).to.equal('gw-under-test');
    });

    it('opens one server span per request as a child of the incoming traceparent', () => {
      expect(receiver.spans.filter((s) => s.kind === 2)).to.have.length(1);
      expect(server.traceId).to.equal(TRACE_ID);
      expect(server.parentSpanId).to.equal(PARENT_ID);
      expect(server.name).to.equal('POST /v1/chat/completions');
      expect(server.attributes).to.deep.include({
        'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'http.response.status_code': 200,
        'gen_ai.operation.name': 'chat', 'gen_ai.request.model': ACME_MODEL, 'gen_ai.response.model': ACME_MODEL,
        'gen_ai.provider.name': 'acme', 'gen_ai.usage.input_tokens': 11, 'gen_ai.usage.output_tokens': 6,
        'gateway.request_id': 'obs-trace-1', 'gateway.key_id': 'env-1',
      });
      expect(server.attributes['gateway.cost_usd']).to.be.closeTo(0.000023, 1e-12);
    });

    it('opens one client span per upstream call with gen_ai attributes, child of the request span', () => {
      expect(receiver.spans.filter((s) => s.kind === 3)).to.have.length(1);
      expect(upstream.traceId).to.equal(TRACE_ID);
      expect(upstream.parentSpanId).to.equal(server.spanId);
      expect(upstream.name).to.equal(`chat ${ACME_MODEL}`);
      expect(upstream.attributes).to.deep.include({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': ACME_MODEL, 'gen_ai.provider.name': 'acme', 'http.request.method': 'POST', 'http.response.status_code': 200 });
    });

    it('propagates the trace upstream: the provider gets a traceparent naming the upstream span', () => {
      expect(sentTraceparent).to.equal(`00-${TRACE_ID}-${upstream.spanId}-01`);
    });
  });

  describe('without an endpoint', () => {
    it('adds no trace headers upstream', async () => {
      fake.reset();
      const gw = await startObserved({ fake });
      try {
        const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
        await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] });
        expect(fake.requests.at(-1)!.headers).not.to.have.property('traceparent');
      } finally {
        await gw.close();
      }
    });
  });

  describe('#resolveTracesUrl', () => {
    it('is off with nothing set, prefers the config, and appends /v1/traces to base URLs like the SDKs', () => {
      expect(resolveTracesUrl({}, {})).to.equal(undefined);
      expect(resolveTracesUrl({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal('http://collector:4318/v1/traces');
      expect(resolveTracesUrl({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom' })).to.equal('http://collector:4318/custom');
      expect(resolveTracesUrl({ otlp_endpoint: 'http://mine:4318/' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal('http://mine:4318/v1/traces');
      expect(resolveTracesUrl({ otlp_endpoint: 'http://mine:4318/v1/traces' }, {})).to.equal('http://mine:4318/v1/traces');
    });
  });
});
