/**
 * Upstream failures reach the client in the route's own envelope whatever the provider's error
 * format: 4xx/429 keep their status (Retry-After forwarded), the provider refusing the gateway's
 * key and 5xx become 502, overload 503 (529 on messages); a failure after the
 * stream started becomes the surface's own error event, which the official SDKs surface.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import type { ClientDriver } from './support/client-driver.js';
import { chatDriver } from './support/chat-client.js';
import { deploymentFor, kitCell as cell, TEST_ROUTING, useKitGateway } from '../../kit/routing-gateway.js';
import { messagesDriver } from './support/messages-client.js';
import { responsesDriver } from './support/responses-client.js';
import { DIALECT_MODELS } from './support/scenario.js';

type Client = 'chat' | 'responses' | 'messages';
const DRIVERS: Record<Client, (gw: TestGateway) => ClientDriver> = { chat: chatDriver, responses: responsesDriver, messages: messagesDriver };
const modelOf = (dialect: string) => DIALECT_MODELS.find((d) => d.dialect === dialect)!.model;

/** What an SDK error exposes, whichever SDK threw it. */
interface SdkFailure { status: number | undefined; retryAfter: string | null | undefined; body: unknown; message: string }

async function failureOf(run: () => Promise<unknown>): Promise<SdkFailure> {
  try {
    await run();
  } catch (e) {
    if (e instanceof OpenAI.APIError) return { status: e.status, retryAfter: e.headers?.get('retry-after'), body: e.error, message: e.message };
    if (e instanceof Anthropic.APIError) return { status: e.status, retryAfter: e.headers?.get('retry-after'), body: e.error, message: e.message };
    throw e;
  }
  throw new Error('the call succeeded; an error was expected');
}

/** Checks the body against the route's envelope: messages (SPEC 2.6) or default (SPEC 2.5). */
function expectEnvelope(client: Client, body: unknown, upstreamMessage: string): void {
  if (client === 'messages') {
    // Anthropic's SDK keeps the whole body.
    const b = body as { type: string; error: { type: string; message: string } };
    expect(b.type).to.equal('error');
    expect(b.error.type).to.be.a('string');
    expect(b.error.message).to.include(upstreamMessage);
  } else {
    // OpenAI's SDK keeps body.error.
    const e = body as { message: string; type: string; code?: string | null };
    expect(e.type).to.be.a('string');
    expect(e.message).to.include(upstreamMessage);
  }
}

const ERROR_CASES: Array<{ client: Client; dialect: string; upstreamStatus: number; retryAfter?: string; clientStatus: number; why: string }> = [
  { client: 'chat', dialect: 'anthropic-messages', upstreamStatus: 429, retryAfter: '7', clientStatus: 429, why: 'Anthropic error shape -> default envelope' },
  { client: 'messages', dialect: 'openai-chat', upstreamStatus: 429, retryAfter: '12', clientStatus: 429, why: 'OpenAI error shape -> messages envelope' },
  { client: 'responses', dialect: 'gemini', upstreamStatus: 429, retryAfter: '30', clientStatus: 429, why: 'google.rpc error shape -> default envelope' },
  { client: 'messages', dialect: 'gemini', upstreamStatus: 400, clientStatus: 400, why: 'google.rpc INVALID_ARGUMENT -> messages envelope' },
  { client: 'chat', dialect: 'openai-chat', upstreamStatus: 400, clientStatus: 400, why: 'same format, gateway envelope' },
  { client: 'messages', dialect: 'anthropic-messages', upstreamStatus: 429, retryAfter: '3', clientStatus: 429, why: 'same format, messages envelope' },
  { client: 'responses', dialect: 'openai-responses', upstreamStatus: 401, clientStatus: 502, why: 'same format, provider refused the gateway key: not the client\'s fault' },
  { client: 'chat', dialect: 'openai-responses', upstreamStatus: 503, retryAfter: '2', clientStatus: 503, why: 'upstream 503 -> 503 overloaded' },
  { client: 'chat', dialect: 'openai-responses', upstreamStatus: 500, clientStatus: 502, why: 'upstream 5xx -> 502' },
  { client: 'messages', dialect: 'anthropic-messages', upstreamStatus: 529, clientStatus: 529, why: 'Anthropic overloaded (529) stays 529 on messages' },
  { client: 'responses', dialect: 'anthropic-messages', upstreamStatus: 500, clientStatus: 502, why: 'upstream 500 -> 502 in the default envelope' },
];

describe('upstream errors through the text surfaces', () => {
  // One try per target: this suite is about how one upstream failure is answered.
  const h = useKitGateway({ routing: { ...TEST_ROUTING, retry: { ...TEST_ROUTING.retry, attempts: 1 } } });
  const requestsOf = (dialect: string) => deploymentFor(h.kit, dialect).requests.filter((r) => r.dialect === dialect);

  describe('error answers', () => {
    for (const c of ERROR_CASES) {
      cell(h, `${c.client} client <- ${c.dialect} ${c.upstreamStatus}: ${c.clientStatus} (${c.why})`, async () => {
        const message = `fake ${c.dialect} says no (${c.upstreamStatus})`;
        deploymentFor(h.kit, c.dialect).enqueue({ status: c.upstreamStatus, message, ...(c.retryAfter ? { retryAfter: c.retryAfter } : {}) });
        const failure = await failureOf(() => DRIVERS[c.client](h.gw).askText(modelOf(c.dialect), false));
        expect(failure.status, 'client status').to.equal(c.clientStatus);
        if (c.retryAfter) expect(failure.retryAfter, 'Retry-After forwarded').to.equal(c.retryAfter);
        expectEnvelope(c.client, failure.body, message);
        expect(requestsOf(c.dialect), 'SDK retries are off: one upstream call').to.have.length(1);
      });
    }
  });

  describe('failure in the middle of a stream', () => {
    for (const client of ['chat', 'messages'] as const) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect}: the SDK throws the surface's error event`, async () => {
          deploymentFor(h.kit, dialect).enqueue({ failAfterEvents: 3 });
          const failure = await DRIVERS[client](h.gw).askText(model, true).then(
            () => undefined,
            (e: unknown) => e as Error,
          );
          expect(failure, 'the SDK threw').to.be.instanceOf(Error);
          expect(failure!.message).to.match(/failed mid-stream/);
        });
      }
    }
    for (const { dialect, model } of DIALECT_MODELS) {
      cell(h, `responses client <- ${dialect}: the stream ends with the surface's error event (and response.failed when translated)`, async () => {
        deploymentFor(h.kit, dialect).enqueue({ failAfterEvents: 3 });
        const stream = await new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key, maxRetries: 0 }).responses.create({ model, input: 'hi', stream: true });
        const events: Array<{ type: string; message?: string; response?: { status?: string; error?: { message: string } | null } }> = [];
        for await (const event of stream) events.push(event as (typeof events)[number]);
        const types = events.map((e) => e.type);
        expect(types[0]).to.equal('response.created');
        if (dialect === 'openai-responses') {
          // Same format: the provider's own error event is forwarded as it came.
          expect(types.at(-1)).to.equal('error');
          expect(events.at(-1)!.message).to.match(/failed mid-stream/);
          return;
        }
        expect(types.slice(-2)).to.deep.equal(['error', 'response.failed']);
        expect(events.at(-2)!.message).to.match(/failed mid-stream/);
        expect(events.at(-1)!.response!.status).to.equal('failed');
        expect(events.at(-1)!.response!.error!.message).to.match(/failed mid-stream/);
      });
    }
  });
});
