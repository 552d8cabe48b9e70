/**
 * Every text surface's StreamEncoder.fail() writes the failure in its own format, with values
 * the client's SDK knows, for every class of error the gateway produces, whether or not the
 * stream had started: chat a `data: {"error":{...}}` object, messages an `event: error` with one
 * of Anthropic's types, responses an `error` event then `response.failed` whose error code is in
 * OpenAI's enum.
 */
import { expect } from 'chai';
import type { CodecError, SseFrame } from '../../src/codecs/codec.js';
import type { Conversation } from '../../src/codecs/internal.js';
import { surfaces } from '../../src/compile/registry.js';
import { ERROR_CATALOG } from '../../src/errors/catalog.js';

const REQUEST: Conversation = { model: 'test/model', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true };
const ANTHROPIC_TYPES = ['invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error', 'request_too_large', 'rate_limit_error', 'timeout_error', 'api_error', 'overloaded_error'];
// ResponseError.code of OpenAI's Responses API (openapi: ResponseErrorCode).
const RESPONSES_CODES = ['server_error', 'rate_limit_exceeded', 'invalid_prompt', 'vector_store_timeout', 'invalid_image', 'invalid_image_format', 'invalid_base64_image', 'invalid_image_url', 'image_too_large', 'image_too_small', 'image_parse_error', 'image_content_policy_violation', 'invalid_image_mode', 'image_file_too_large', 'unsupported_image_media_type', 'empty_image_file', 'failed_to_download_image', 'image_file_not_found'];

/** Every catalog row that can end a stream (5xx, 429, upstream 4xx passed on). */
const FAILURES: CodecError[] = [
  ...ERROR_CATALOG.filter((e) => e.status >= 429 && !('passthrough' in e)).map((e) => ({ status: e.status, type: e.type, code: e.code, message: `failure ${e.code}` })),
  { status: 400, type: 'invalid_request_error', code: 'context_length_exceeded', message: 'provider 400' },
];

const data = (f: SseFrame) => JSON.parse(f.data) as Record<string, unknown>;

describe('codecs: StreamEncoder.fail() of every text surface', () => {
  for (const started of [false, true]) {
    for (const failure of FAILURES) {
      const when = `${started ? 'after' : 'before'} the stream started`;
      it(`openai-chat: ${failure.code} ${when} -> one data: {"error":{message,type,code}} frame`, () => {
        const enc = surfaces.get('openai-chat')!.createStreamEncoder(REQUEST);
        if (started) enc.encode({ type: 'start', id: 'x', model: 'm', created: 1 });
        const frames = enc.fail(failure);
        expect(frames).to.have.length(1);
        expect(data(frames[0]!).error).to.deep.equal({ message: failure.message, type: failure.type, code: failure.code });
        expect(enc.end(), 'nothing after the failure').to.deep.equal([]);
      });
      it(`anthropic-messages: ${failure.code} ${when} -> event: error with an Anthropic type`, () => {
        const enc = surfaces.get('anthropic-messages')!.createStreamEncoder(REQUEST);
        if (started) enc.encode({ type: 'start', id: 'x', model: 'm', created: 1 });
        const frames = enc.fail(failure);
        expect(frames.map((f) => f.event)).to.deep.equal(['error']);
        const body = data(frames[0]!) as { type: string; error: { type: string; message: string } };
        expect(body.type).to.equal('error');
        expect(ANTHROPIC_TYPES).to.include(body.error.type);
        if (failure.code === 'upstream_overloaded') expect(body.error.type).to.equal('overloaded_error');
        if (failure.status === 429) expect(body.error.type).to.equal('rate_limit_error');
        expect(enc.end()).to.deep.equal([]);
      });
      it(`openai-responses: ${failure.code} ${when} -> error then response.failed with a spec code`, () => {
        const enc = surfaces.get('openai-responses')!.createStreamEncoder(REQUEST);
        if (started) enc.encode({ type: 'start', id: 'resp_x', model: 'm', created: 1 });
        const frames = enc.fail(failure);
        const events = frames.map((f) => f.event);
        expect(events.slice(-2)).to.deep.equal(['error', 'response.failed']);
        // Opened exactly once, whether or not it had started.
        expect(events.filter((e) => e === 'response.created')).to.have.length(started ? 0 : 1);
        const failed = data(frames.at(-1)!) as { response: { status: string; error: { code: string; message: string } } };
        expect(failed.response.status).to.equal('failed');
        expect(RESPONSES_CODES).to.include(failed.response.error.code);
        expect(failed.response.error.message).to.equal(failure.message);
        expect(enc.end()).to.deep.equal([]);
      });
    }
  }
});
