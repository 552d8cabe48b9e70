import type { SurfaceCodec } from '../codec.js';
import { CollectingStreamEncoder } from './collecting-stream-encoder.js';
import { encodeResearchRun } from './response-encode.js';
import { decodeTaskRequest } from './task-request.js';

/** POST /v1/research/runs (SPEC 4.10): a text task answered with a `research.run` object. */
export const researchSurface: SurfaceCodec = {
  name: 'research',
  decodeRequest: (body) => decodeTaskRequest(body, { anyJson: false }),
  encodeResponse: encodeResearchRun,
  createStreamEncoder: (request) => new CollectingStreamEncoder(request, encodeResearchRun),
};
