/**
 * Errors tell the truth (issue 10 items 6, 7, 8, 13), through the official SDKs with retries off:
 * - a provider refusing the gateway's own key is a 502 `upstream_auth_error` naming the provider,
 *   never a 401 that makes the SDK blame the client's key;
 * - provider error kinds survive translation (Anthropic 529 overloaded_error stays 529 on
 *   /v1/messages, 503 elsewhere; rate limits stay 429 with Retry-After);
 * - every error event inside a stream has a type the client's SDK knows;
 * - a stream cut before its format's terminal event, a malformed frame, or a 200 that is not an
 *   event stream ends with the client's own error, never as if the answer were complete;
 * - an upstream error that echoes the configured provider key never shows it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { FAKE_KEYS } from '../../kit/text-deployments.js';
import { cell, useTextGateway } from './support/harness.js';
import { DIALECT_MODELS, TEXT_QUESTION } from './support/scenario.js';

type Client = 'chat' | 'responses' | 'messages';
const CLIENTS: Client[] = ['chat', 'responses', 'messages'];
const ANTHROPIC_TYPES = ['invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error', 'request_too_large', 'rate_limit_error', 'timeout_error', 'api_error', 'overloaded_error'];

/** Status, class, body and headers of what an SDK threw. */
interface Thrown { error: Error; status: number | undefined; body: Record<string, unknown>; headers: Headers | undefined }

function thrown(e: unknown): Thrown {
  if (e instanceof OpenAI.APIError) return { error: e, status: e.status, body: (e.error ?? {}) as Record<string, unknown>, headers: e.headers };
  if (e instanceof Anthropic.APIError) return { error: e, status: e.status, body: (e.error ?? {}) as Record<string, unknown>, headers: e.headers };
  throw e;
}

async function expectThrow(run: () => Promise<unknown>): Promise<Thrown> {
  let result: unknown;
  try {
    result = await run();
  } catch (e) {
    return thrown(e);
  }
  throw new Error(`the call succeeded (${JSON.stringify(result).slice(0, 200)}); an error was expected`);
}

/** `error.type`, `error.code` and `error.message` whichever envelope the SDK kept. */
function errorFields(client: Client, body: Record<string, unknown>): { type: string; code: unknown; message: string } {
  const e = (client === 'messages' ? body.error : body) as { type: string; code?: unknown; message: string };
  return { type: e.type, code: e.code, message: e.message };
}

describe('errors tell the truth (official SDKs)', () => {
  const h = useTextGateway();
  const openai = () => new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: h.gw.url, apiKey: h.gw.key, maxRetries: 0 });

  /** One non-streamed call per client format. */
  function call(client: Client, model: string): Promise<unknown> {
    if (client === 'chat') return openai().chat.completions.create({ model, messages: [{ role: 'user', content: TEXT_QUESTION }] });
    if (client === 'responses') return openai().responses.create({ model, input: TEXT_QUESTION });
    return anthropic().messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: TEXT_QUESTION }] });
  }

  /**
   * One streamed call per client format, consumed to the end as an application would: returns
   * what the SDK threw, or, for Responses (whose SDK yields error events instead of throwing),
   * the event types seen.
   */
  async function stream(client: Client, model: string): Promise<{ thrown?: Thrown; events: string[]; text: string }> {
    const events: string[] = [];
    let text = '';
    try {
      if (client === 'chat') {
        const s = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: TEXT_QUESTION }], stream: true });
        for await (const chunk of s) {
          events.push(chunk.choices[0]?.finish_reason ?? 'chunk');
          text += chunk.choices[0]?.delta.content ?? '';
        }
      } else if (client === 'responses') {
        const s = await openai().responses.create({ model, input: TEXT_QUESTION, stream: true });
        for await (const event of s) {
          events.push(event.type);
          if (event.type === 'response.output_text.delta') text += event.delta;
        }
      } else {
        const s = await anthropic().messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: TEXT_QUESTION }], stream: true });
        for await (const event of s) {
          events.push(event.type);
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
        }
      }
    } catch (e) {
      return { thrown: thrown(e), events, text };
    }
    return { events, text };
  }

  describe('a provider refusing the gateway key (item 6)', () => {
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        for (const status of [401, 403]) {
          cell(h, `${client} client <- ${dialect} ${status}: 502 upstream_auth_error naming the provider, not the SDK's AuthenticationError`, async () => {
            h.fakes.byDialect[dialect]!.enqueue({ status, message: 'Incorrect API key provided.' });
            const t = await expectThrow(() => call(client, model));
            expect(t.status).to.equal(502);
            expect(t.error).to.be.instanceOf(client === 'messages' ? Anthropic.InternalServerError : OpenAI.InternalServerError);
            expect(t.error).to.not.be.instanceOf(client === 'messages' ? Anthropic.AuthenticationError : OpenAI.AuthenticationError);
            const e = errorFields(client, t.body);
            expect(e.code).to.equal('upstream_auth_error');
            expect(e.type).to.equal(client === 'messages' ? 'api_error' : 'upstream_error');
            expect(e.message).to.include(`Provider '${model.split('/')[0]}'`).and.include('Incorrect API key provided.');
          });
        }
      }
    }
    cell(h, 'Gemini\'s 400 API_KEY_INVALID is the same refusal: 502 upstream_auth_error', async () => {
      h.fakes.byDialect.gemini!.enqueue({ status: 400, errorBody: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } } });
      const t = await expectThrow(() => call('chat', 'google/gemini-3.8-flash'));
      expect(t.status).to.equal(502);
      expect(errorFields('chat', t.body).code).to.equal('upstream_auth_error');
    });
  });

  describe('provider error kinds survive translation (item 7)', () => {
    const anthropicModel = 'anthropic/claude-sonnet-5-5';
    cell(h, 'Anthropic 529 overloaded_error reaches a messages client as 529 OverloadedError, Retry-After kept', async () => {
      h.fakes.byDialect['anthropic-messages']!.enqueue({ status: 529, message: 'Overloaded', retryAfter: '4' });
      const t = await expectThrow(() => call('messages', anthropicModel));
      expect(t.status).to.equal(529);
      expect(t.error).to.be.instanceOf(Anthropic.OverloadedError);
      expect(errorFields('messages', t.body).type).to.equal('overloaded_error');
      expect(t.headers?.get('retry-after')).to.equal('4');
    });
    for (const client of ['chat', 'responses'] as const) {
      cell(h, `Anthropic 529 reaches a ${client} client as 503 overloaded_error`, async () => {
        h.fakes.byDialect['anthropic-messages']!.enqueue({ status: 529, message: 'Overloaded' });
        const t = await expectThrow(() => call(client, anthropicModel));
        expect(t.status).to.equal(503);
        expect(t.error).to.be.instanceOf(OpenAI.InternalServerError);
        expect(errorFields(client, t.body)).to.include({ type: 'overloaded_error', code: 'upstream_overloaded' });
      });
    }
    cell(h, 'a 200 whose body is an OpenAI-style error (compatible servers) is that error: 429 stays a RateLimitError', async () => {
      h.fakes.byDialect['openai-chat']!.enqueue({ rawAnswer: { contentType: 'application/json', body: JSON.stringify({ error: { message: 'Rate limit exceeded upstream', type: 'rate_limit_error', code: 429 } }) } });
      const t = await expectThrow(() => call('messages', 'openai/gpt-4.1-mini'));
      expect(t.status).to.equal(429);
      expect(t.error).to.be.instanceOf(Anthropic.RateLimitError);
      expect(errorFields('messages', t.body).message).to.include('Rate limit exceeded upstream');
    });
    cell(h, 'a 200 whose body is an Anthropic error is that error: overloaded_error reaches a chat client as 503', async () => {
      h.fakes.byDialect['anthropic-messages']!.enqueue({ rawAnswer: { contentType: 'application/json', body: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) } });
      const t = await expectThrow(() => call('chat', anthropicModel));
      expect(t.status).to.equal(503);
      expect(errorFields('chat', t.body)).to.include({ type: 'overloaded_error', code: 'upstream_overloaded' });
    });
    cell(h, 'an OpenAI 503 reaches a messages client as 529 overloaded_error', async () => {
      h.fakes.byDialect['openai-chat']!.enqueue({ status: 503, message: 'The engine is currently overloaded.' });
      const t = await expectThrow(() => call('messages', 'openai/gpt-4.1-mini'));
      expect(t.status).to.equal(529);
      expect(t.error).to.be.instanceOf(Anthropic.OverloadedError);
    });
    for (const client of CLIENTS) {
      cell(h, `a Gemini 429 reaches a ${client} client as 429 RateLimitError with Retry-After`, async () => {
        h.fakes.byDialect.gemini!.enqueue({ status: 429, message: 'Resource has been exhausted', retryAfter: '9' });
        const t = await expectThrow(() => call(client, 'google/gemini-3.8-flash'));
        expect(t.status).to.equal(429);
        expect(t.error).to.be.instanceOf(client === 'messages' ? Anthropic.RateLimitError : OpenAI.RateLimitError);
        expect(t.headers?.get('retry-after')).to.equal('9');
      });
    }

    describe('error events inside a stream carry a type the SDK knows', () => {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `messages client <- ${dialect} in-band error: an Anthropic error type`, async () => {
          h.fakes.byDialect[dialect]!.enqueue({ fixture: 'text', failAfterEvents: 3 });
          const r = await stream('messages', model);
          expect(r.thrown, 'the SDK threw').to.not.equal(undefined);
          const type = (r.thrown!.body as { error?: { type?: string } }).error?.type;
          expect(ANTHROPIC_TYPES).to.include(type);
          // The fakes of Anthropic and Gemini send overload (overloaded_error, 503 UNAVAILABLE).
          if (dialect === 'anthropic-messages' || dialect === 'gemini') expect(type).to.equal('overloaded_error');
        });
        cell(h, `chat client <- ${dialect} in-band error: an error object the SDK throws as APIError`, async () => {
          h.fakes.byDialect[dialect]!.enqueue({ fixture: 'text', failAfterEvents: 3 });
          const r = await stream('chat', model);
          expect(r.thrown, 'the SDK threw').to.not.equal(undefined);
          expect(r.thrown!.body).to.have.property('message').that.is.a('string');
          expect(r.thrown!.body).to.have.property('type').that.is.a('string');
        });
      }
    });
  });

  describe('the stream-end rule (item 8)', () => {
    const faults = [
      { name: 'cut before its terminal event', reply: { fixture: 'text', endAfterEvents: 3 }, code: 'upstream_stream_truncated' },
      { name: 'reset mid-stream', reply: { fixture: 'text', resetAfterEvents: 3 }, code: 'upstream_stream_truncated' },
      { name: 'a frame that is not JSON', reply: { fixture: 'text', malformedAfterEvents: 3 }, code: 'invalid_upstream_response' },
    ];
    for (const fault of faults) {
      for (const client of CLIENTS) {
        for (const { dialect, model } of DIALECT_MODELS) {
          cell(h, `${client} client <- ${dialect} stream ${fault.name}: ends with the client's error, never as finished`, async () => {
            h.fakes.byDialect[dialect]!.enqueue(fault.reply);
            const r = await stream(client, model);
            // A reset can also land before the gateway read the first event (TCP drops what was
            // unread): then it is an HTTP 502 before the stream, which every SDK throws.
            if (r.thrown?.status === 502) {
              expect(errorFields(client, r.thrown.body).code).to.equal(fault.code);
              return;
            }
            if (client === 'responses') {
              expect(r.thrown, 'Responses streams report failure as events').to.equal(undefined);
              expect(r.events).to.not.include('response.completed');
              expect(r.events.filter((t) => t === 'response.created'), 'the stream is opened once').to.have.length(1);
              expect(r.events.at(-2)).to.equal('error');
              expect(r.events.at(-1)).to.equal('response.failed');
              return;
            }
            expect(r.thrown, `the SDK threw (events seen: ${r.events.join(',')})`).to.not.equal(undefined);
            expect(r.events).to.not.include('message_stop');
            expect(r.events).to.not.include('stop');
            const e = errorFields(client, r.thrown!.body);
            if (client === 'messages') expect(e.type).to.equal('api_error');
            else expect(e.code).to.equal(fault.code);
          });
        }
      }
    }
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect} 200 that is not an event stream: 502 invalid_upstream_response before the stream`, async () => {
          h.fakes.byDialect[dialect]!.enqueue({ rawAnswer: { contentType: 'text/html', body: '<html><title>Bad gateway</title></html>' } });
          const r = await stream(client, model);
          expect(r.thrown, 'the SDK threw').to.not.equal(undefined);
          expect(r.thrown!.status).to.equal(502);
          expect(errorFields(client, r.thrown!.body).code).to.equal('invalid_upstream_response');
        });
      }
    }
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect} 200 whose body is not JSON (no stream): 502 invalid_upstream_response, not "unreachable"`, async () => {
          h.fakes.byDialect[dialect]!.enqueue({ rawAnswer: { contentType: 'text/html', body: '<html><title>Bad gateway</title></html>' } });
          const t = await expectThrow(() => call(client, model));
          expect(t.status).to.equal(502);
          expect(errorFields(client, t.body).code).to.equal('invalid_upstream_response');
        });
      }
    }
    cell(h, 'an empty 200 stream is a 502 upstream_stream_truncated, not an empty answer', async () => {
      h.fakes.byDialect['openai-chat']!.enqueue({ fixture: 'text', endAfterEvents: 0 });
      const r = await stream('messages', 'openai/gpt-4.1-mini');
      expect(r.thrown!.status).to.equal(502);
      expect(errorFields('messages', r.thrown!.body)).to.include({ type: 'api_error', code: 'upstream_stream_truncated' });
    });
  });

  describe('redaction of provider keys by exact value (item 13)', () => {
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect} error body echoing the provider key: the key never shows`, async () => {
          const key = dialect === 'gemini' ? FAKE_KEYS.gemini : dialect === 'anthropic-messages' ? FAKE_KEYS.anthropic : FAKE_KEYS.openai;
          h.fakes.byDialect[dialect]!.enqueue({ status: 400, errorBody: { error: { message: `Key ${key} may not use this model (key=${key})`, type: 'invalid_request_error', code: `bad_key_${key}` } } });
          const t = await expectThrow(() => call(client, model));
          expect(t.status).to.equal(400);
          const text = JSON.stringify(t.body) + t.error.message;
          expect(text).to.not.include(key);
          expect(text).to.include('[redacted]');
        });
      }
    }
  });
});
