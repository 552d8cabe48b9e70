import type { DialectRequest } from '../../codecs/codec.js';
import { decodeBedrockError, encodeModelLabel, readErrorName, statusOfBedrockError } from '../../codecs/bedrock-converse/index.js';
import { upstreamNameOf } from '../../config/model-name.js';
import { firstHeader } from '../../errors/upstream-failure.js';
import type { UpstreamHead } from '../../upstream/upstream-body.js';
import type { OperationCall, UpstreamAccess } from '../types.js';
import type { EventStreamMessage } from '../../upstream/event-stream.js';
import type { Platform, RequestShaper } from './types.js';

/** The body version Claude on Bedrock takes (instead of the `anthropic-version` header). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
/** The content type of Bedrock's stream answers. */
const EVENT_STREAM = 'application/vnd.amazon.eventstream';

/**
 * Claude through InvokeModel (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html):
 * `POST /model/<id>/invoke` or `/invoke-with-response-stream`; the body is the Messages body
 * without `model` (in the path) and `stream` (chosen by the path), with
 * `anthropic_version: bedrock-2023-05-31` and the provider's beta names as `anthropic_beta`
 * (as @anthropic-ai/bedrock-sdk sends them). A same-format call sends the client's body so.
 */
const claudeShaper: RequestShaper = (req, call): DialectRequest => {
  if (req.path !== '/v1/messages') return req;
  const { model: _model, stream, anthropic_version: version, ...rest } = req.body;
  const body: Record<string, unknown> = { anthropic_version: typeof version === 'string' && version.startsWith('bedrock-') ? version : BEDROCK_ANTHROPIC_VERSION, ...rest };
  const beta = call.provider.options?.beta;
  if (Array.isArray(beta) && beta.length > 0 && body.anthropic_beta === undefined) body.anthropic_beta = beta;
  const { 'anthropic-version': _v, 'anthropic-beta': _b, ...headers } = req.headers ?? {};
  const operation = stream === true ? 'invoke-with-response-stream' : 'invoke';
  return { path: `/model/${encodeModelLabel(upstreamNameOf(call.model))}/${operation}`, body, headers };
};

/**
 * Bedrock's stream answers are binary event streams: read through the event-stream reader
 * (CRCs checked) and written as the SSE the dialect's decoder and the passthrough read
 * (../bedrock/event-frames.ts). The head then says `text/event-stream`; any other answer (JSON)
 * is left as it is.
 */
function eventStreamAnswer(pick: (frames: EventFrames) => (message: EventStreamMessage) => string | undefined): NonNullable<UpstreamAccess['answer']> {
  return async (res: UpstreamHead, call: OperationCall): Promise<UpstreamHead> => {
    const type = res.header('content-type') ?? '';
    if (!type.toLowerCase().startsWith(EVENT_STREAM)) return res;
    const { reader, frames } = await (streams ??= loadStreams());
    res.body.transformChunks(reader.eventStreamTransform(call.providerName, pick(frames)));
    return {
      ok: true,
      status: res.status,
      body: res.body,
      get headers() {
        return { ...res.headers, 'content-type': 'text/event-stream' };
      },
      header: (name) => (name === 'content-type' ? 'text/event-stream' : res.header(name)),
    };
  };
}

type EventFrames = typeof import('../bedrock/event-frames.js');

/** The event-stream reader (and @smithy/eventstream-codec) load with the first Bedrock stream only. */
let streams: Promise<{ reader: typeof import('../../upstream/event-stream.js'); frames: EventFrames }> | undefined;

async function loadStreams() {
  const [reader, frames] = await Promise.all([import('../../upstream/event-stream.js'), import('../bedrock/event-frames.js')]);
  return { reader, frames };
}

const converseAnswer = eventStreamAnswer((f) => f.converseEventText);
const claudeAnswer = eventStreamAnswer((f) => f.claudeChunkText);

/**
 * An error answer read the AWS way: the error name from `x-amzn-ErrorType` (or the body's
 * `__type`), the status the gateway's table should see for it (ModelNotReady a rate limit,
 * ModelError a 502, ...: codecs/bedrock-converse/error-decode.ts).
 */
const bedrockFailure: NonNullable<UpstreamAccess['failure']> = (status, headers, body) => {
  const info = decodeBedrockError(status, body, firstHeader(headers['x-amzn-errortype']));
  return { status: statusOfBedrockError(readErrorName(info.type), status), info };
};

/**
 * AWS Bedrock Runtime: `https://bedrock-runtime.<region>.amazonaws.com`, SigV4-signed
 * (../auth/aws.ts). Converse is its own provider type (`bedrock-converse`, this platform
 * implied); Claude's Messages format through InvokeModel is `anthropic-messages` with
 * `platform: bedrock`.
 */
export const bedrockPlatform: Platform = {
  name: 'bedrock',
  types: ['anthropic-messages', 'bedrock-converse'],
  requires: ['region'],
  authTypes: ['aws'],
  defaultBaseUrl: (place) => (place.region ? `https://bedrock-runtime.${place.region}.amazonaws.com` : undefined),
  missing: (place, provider) => (place.region ? undefined : `providers.${provider}.region (e.g. from AWS_REGION)`),
  shaper: (type) => (type === 'anthropic-messages' ? claudeShaper : undefined),
  answer: (type) => (type === 'anthropic-messages' ? claudeAnswer : converseAnswer),
  failure: bedrockFailure,
};
