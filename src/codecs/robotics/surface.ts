import type { SurfaceCodec } from '../codec.js';
import { CollectingStreamEncoder } from '../research/collecting-stream-encoder.js';
import { decodeTaskRequest } from '../research/task-request.js';
import { encodeRoboticsSession } from './response-encode.js';

/**
 * POST /v1/robotics/sessions (SPEC 4.11): `input` may be any JSON (non-text input reaches the
 * model as JSON text); the answer is a `robotics.session` object with a plan of steps.
 */
export const roboticsSurface: SurfaceCodec = {
  name: 'robotics',
  decodeRequest: (body) => decodeTaskRequest(body, { anyJson: true }),
  encodeResponse: encodeRoboticsSession,
  createStreamEncoder: (request) => new CollectingStreamEncoder(request, encodeRoboticsSession),
};
