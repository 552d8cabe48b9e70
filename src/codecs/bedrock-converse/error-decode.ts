/**
 * Bedrock Runtime errors (restJson1): the HTTP status, the error name in the `x-amzn-ErrorType`
 * header (`ThrottlingException:http://internal.amazon.com/...`) or in the body's `__type`, and
 * `{"message": "..."}` (sometimes `Message`). Mid-stream, the same errors arrive as event-stream
 * messages of type `exception` (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors).
 */
import { upstreamStreamError, type UpstreamErrorInfo } from '../../errors/upstream-failure.js';
import { asObject, readNumber, readString } from '../shared/json.js';
import type { StreamErrorEvent } from '../shared/stream-end.js';

/**
 * The status each exception stands for, where the gateway's error table should see another than
 * the HTTP one: a model that failed (ModelError 424, ModelStreamError) is an upstream failure
 * (502, retried elsewhere), not the client's mistake; a model still loading (ModelNotReady) and
 * an exhausted quota are rate limits (429: retried, then failed over); the rest keep theirs
 * (ThrottlingException 429, ValidationException 400, AccessDeniedException 403,
 * ServiceUnavailableException 503, ModelTimeoutException 408, InternalServerException 500).
 */
const STATUS_BY_ERROR: Readonly<Record<string, number>> = {
  ThrottlingException: 429,
  ModelNotReadyException: 429,
  ServiceQuotaExceededException: 429,
  ValidationException: 400,
  ResourceNotFoundException: 404,
  AccessDeniedException: 403,
  UnrecognizedClientException: 403,
  InvalidSignatureException: 403,
  ExpiredTokenException: 403,
  ModelTimeoutException: 408,
  ModelErrorException: 502,
  ModelStreamErrorException: 502,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};

/** `ThrottlingException:http://...` or `aws.protocoltests#ThrottlingException` -> `ThrottlingException`. */
export function readErrorName(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const name = value.split(':')[0]!.split('#').at(-1)!.trim();
  return name === '' ? undefined : name;
}

/** The status the gateway's error table should read for an error name (the HTTP one when unknown). */
export function statusOfBedrockError(name: string | undefined, httpStatus: number): number {
  return (name !== undefined ? STATUS_BY_ERROR[name] : undefined) ?? httpStatus;
}

/**
 * A Bedrock error body (any shape) -> message and type. `errorType` is the `x-amzn-ErrorType`
 * header when the caller has it; the body's `__type` / `code` otherwise. The gateway code stays
 * its own (`rate_limit_exceeded`, `upstream_400` ...); the exception name is the type.
 */
export function decodeBedrockError(status: number, body: unknown, errorType?: string): UpstreamErrorInfo {
  const object = asObject(body);
  const name = readErrorName(errorType) ?? readErrorName(readString(object.__type)) ?? readErrorName(readString(object.code));
  const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 300) : undefined;
  const message = readString(object.message) ?? readString(object.Message) ?? text ?? `HTTP ${status}${name ? ` ${name}` : ''}`;
  return { message, ...(name !== undefined ? { type: name } : {}), code: null };
}

/**
 * An `exception` message inside a 200 stream -> the internal error event. `exceptionType` is the
 * member name (`throttlingException`); its payload is `{"message": ...}` (modelStreamErrorException
 * adds `originalStatusCode`).
 */
export function streamExceptionEvent(exceptionType: string, payload: unknown): StreamErrorEvent {
  const name = exceptionType.charAt(0).toUpperCase() + exceptionType.slice(1);
  const object = asObject(payload);
  const original = readNumber(object.originalStatusCode);
  const message = readString(object.message) ?? readString(object.originalMessage) ?? `Bedrock ended the stream with ${name}.`;
  const status = statusOfBedrockError(name, 502);
  return upstreamStreamError(status, { message: original !== undefined ? `${message} (model status ${original})` : message, type: name, code: null });
}
