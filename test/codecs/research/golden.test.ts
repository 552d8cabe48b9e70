import { expect } from 'chai';
import type { SurfaceCodec } from '../../../src/codecs/codec.js';
import type { Conversation, InternalResponse } from '../../../src/codecs/internal.js';
import { researchSurface } from '../../../src/codecs/research/index.js';
import { roboticsSurface } from '../../../src/codecs/robotics/index.js';
import { isGatewayError } from '../../../src/errors/gateway-error.js';
import { GoldenCase, listCases, readableFrames, runStreamEncoder, toPlainJson, useFixedClock, type RecordedEvent } from '../openai-responses/golden-support.js';

/** Research and robotics share one fixture folder; case.json `surface` picks the codec. */
const FORMAT = 'research';
const SURFACES: Record<string, SurfaceCodec> = { research: researchSurface, robotics: roboticsSurface };

describe('codecs/research and codecs/robotics (golden files)', () => {
  useFixedClock();

  for (const name of listCases(FORMAT)) {
    const c = new GoldenCase(FORMAT, name);
    const surfaceName = c.meta().surface ?? 'research';
    const surface = SURFACES[surfaceName] as SurfaceCodec;
    const request = (): Conversation => c.read<Conversation>('internal-request.json');

    describe(`${name} (${surfaceName}): ${c.meta().description ?? ''}`, () => {
      it('is a surface named after its fixture', () => {
        expect(surface.name).to.equal(surfaceName);
      });

      if (c.has('client-request.json') && c.has('internal-request.json')) {
        it('decodeRequest turns client-request into internal-request', () => {
          expect(toPlainJson(surface.decodeRequest(c.read('client-request.json')))).to.deep.equal(c.read('internal-request.json'));
        });
      }

      if (c.has('client-request.json') && c.has('expected-error.json')) {
        it('decodeRequest rejects client-request with a 400', () => {
          const expected = c.read<{ status: number; code: string }>('expected-error.json');
          let thrown: unknown;
          try {
            surface.decodeRequest(c.read('client-request.json'));
          } catch (e) {
            thrown = e;
          }
          expect(isGatewayError(thrown), 'a GatewayError is thrown').to.equal(true);
          expect({ status: (thrown as { status: number }).status, code: (thrown as { code: string }).code }).to.deep.equal(expected);
        });
      }

      if (c.has('internal-response.json') && c.has('client-response.json')) {
        it('encodeResponse writes client-response', () => {
          expect(toPlainJson(surface.encodeResponse(c.read<InternalResponse>('internal-response.json'), request()))).to.deep.equal(c.read('client-response.json'));
        });
      }

      if (c.has('internal-stream.json') && c.has('client-stream.json')) {
        it('the stream encoder writes client-stream (one final frame)', () => {
          const frames = readableFrames(runStreamEncoder(surface.createStreamEncoder(request()), c.read<RecordedEvent[]>('internal-stream.json')));
          expect(frames).to.deep.equal(c.read('client-stream.json'));
          expect(frames).to.have.length(1);
        });
      }
    });
  }
});
