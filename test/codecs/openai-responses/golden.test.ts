import { expect } from 'chai';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Conversation, InternalResponse, StreamEvent } from '../../../src/codecs/internal.js';
import { openAiResponsesDialect, openAiResponsesSurface } from '../../../src/codecs/openai-responses/index.js';
import { isGatewayError } from '../../../src/errors/gateway-error.js';
import { GoldenCase, listCases, maskRandomIds, readableFrames, runStreamDecoder, runStreamEncoder, toPlainJson, useFixedClock, type RecordedEvent } from './golden-support.js';
import { openAiStreamEventValidator, openAiValidator } from '../../helpers/openapi.js';

const FORMAT = 'openai-responses';
const EMPTY_REQUEST: Conversation = { model: '', system: [], messages: [], stream: false };

type Frame = { event?: string; data: unknown };
type SdkEvent = Parameters<typeof accumulateResponse>[0];

/** The internal request of a case: its fixture, or an empty conversation. */
function requestOf(c: GoldenCase): Conversation {
  return c.has('internal-request.json') ? c.read<Conversation>('internal-request.json') : EMPTY_REQUEST;
}

describe('codecs/openai-responses (golden files)', () => {
  useFixedClock();

  for (const name of listCases(FORMAT)) {
    const c = new GoldenCase(FORMAT, name);
    describe(`${name}: ${c.meta().description ?? ''}`, () => {
      if (c.has('client-request.json') && c.has('internal-request.json')) {
        it('surface.decodeRequest turns client-request into internal-request', () => {
          const decoded = openAiResponsesSurface.decodeRequest(c.read('client-request.json'));
          expect(toPlainJson(decoded)).to.deep.equal(c.read('internal-request.json'));
        });
      }

      if (c.has('client-request.json') && c.has('expected-error.json')) {
        it('surface.decodeRequest rejects client-request with a 400', () => {
          const expected = c.read<{ status: number; code: string }>('expected-error.json');
          let thrown: unknown;
          try {
            openAiResponsesSurface.decodeRequest(c.read('client-request.json'));
          } catch (e) {
            thrown = e;
          }
          expect(isGatewayError(thrown), 'a GatewayError is thrown').to.equal(true);
          expect({ status: (thrown as { status: number }).status, code: (thrown as { code: string }).code }).to.deep.equal(expected);
        });
      }

      if (c.has('internal-request.json') && c.has('upstream-request.json')) {
        it('dialect.encodeRequest writes upstream-request, valid against CreateResponse', () => {
          const encoded = openAiResponsesDialect.encodeRequest(requestOf(c), c.target());
          expect(toPlainJson(encoded)).to.deep.equal(c.read('upstream-request.json'));
          expect(openAiValidator('CreateResponse')(encoded.body), 'violations of CreateResponse').to.deep.equal([]);
        });
      }

      if (c.has('upstream-response.json') && c.has('internal-response.json')) {
        it('dialect.decodeResponse turns upstream-response into internal-response', () => {
          const decoded = openAiResponsesDialect.decodeResponse(c.read('upstream-response.json'), requestOf(c));
          expect(toPlainJson(decoded)).to.deep.equal(c.read('internal-response.json'));
        });
      }

      if (c.has('internal-response.json') && c.has('client-response.json')) {
        it('surface.encodeResponse writes client-response, valid against Response', () => {
          const encoded = openAiResponsesSurface.encodeResponse(c.read<InternalResponse>('internal-response.json'), requestOf(c));
          expect(toPlainJson(encoded)).to.deep.equal(c.read('client-response.json'));
          expect(openAiValidator('Response')(encoded), 'violations of Response').to.deep.equal([]);
        });
      }

      if (c.has('upstream-stream.json') && c.has('internal-stream.json')) {
        it('the stream decoder turns upstream-stream into internal-stream', () => {
          const events = runStreamDecoder(openAiResponsesDialect.createStreamDecoder(requestOf(c)), c.read('upstream-stream.json'));
          expect(toPlainJson(events)).to.deep.equal(c.read<StreamEvent[]>('internal-stream.json'));
        });
      }

      if (c.has('internal-stream.json') && c.has('client-stream.json')) {
        it('the stream encoder writes client-stream: valid events, increasing sequence numbers, SDK-accumulable', () => {
          const frames = readableFrames(runStreamEncoder(openAiResponsesSurface.createStreamEncoder(requestOf(c)), c.read<RecordedEvent[]>('internal-stream.json')));
          expect(maskRandomIds(frames)).to.deep.equal(c.read<Frame[]>('client-stream.json'));
          let snapshot: ReturnType<typeof accumulateResponse> | undefined;
          frames.forEach((frame, index) => {
            const data = frame.data as { type: string; sequence_number: number };
            expect(frame.event, `frame ${index} names its event`).to.equal(data.type);
            expect(data.sequence_number, `frame ${index} sequence_number`).to.equal(index);
            expect(openAiStreamEventValidator(data.type)(data), `frame ${index} (${data.type})`).to.deep.equal([]);
            // The official SDK's accumulator must accept every event (it throws on a bad sequence).
            if (index < frames.length - 1) snapshot = accumulateResponse(data as unknown as SdkEvent, snapshot);
          });
          const last = frames[frames.length - 1]?.data as { type: string; response: { output: unknown[] } };
          expect(last.type).to.be.oneOf(['response.completed', 'response.incomplete', 'response.failed']);
          if (last.type !== 'response.failed') {
            // What the incremental events built must equal the items the terminal event states.
            expect(toPlainJson(snapshot?.output)).to.deep.equal(last.response.output);
          }
        });
      }

      if (c.has('upstream-error.json') && c.has('decoded-error.json')) {
        it('dialect.decodeError reads upstream-error', () => {
          const { status, body } = c.read<{ status: number; body: unknown }>('upstream-error.json');
          expect(toPlainJson(openAiResponsesDialect.decodeError(status, body))).to.deep.equal(c.read('decoded-error.json'));
        });
      }
    });
  }
});
