import type { UpstreamErrorInfo } from '../shared/error-body.js';
import { coerceErrorBody, googleErrorCode, readErrorBody } from '../shared/error-body.js';
import { readNumber, readString, isRecord, type JsonObject } from '../shared/json.js';

/** HTTP status per google.rpc status name (https://cloud.google.com/apis/design/errors#handling_errors). */
const STATUS_BY_RPC: Record<string, number> = {
  INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, OUT_OF_RANGE: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403,
  NOT_FOUND: 404, ALREADY_EXISTS: 409, ABORTED: 409, RESOURCE_EXHAUSTED: 429, CANCELLED: 499, INTERNAL: 500,
  UNKNOWN: 500, DATA_LOSS: 500, UNIMPLEMENTED: 501, UNAVAILABLE: 503, DEADLINE_EXCEEDED: 504,
};

/**
 * A google.rpc error object `{code, message, status, details:[{@type: ...ErrorInfo, reason}]}`
 * -> message, type (the rpc status, e.g. INVALID_ARGUMENT), code (ErrorInfo reason such as
 * API_KEY_INVALID, else the status) and the HTTP status it stands for.
 */
export function decodeGoogleErrorObject(error: JsonObject): UpstreamErrorInfo & { status: number } {
  const rpcStatus = readString(error.status);
  const out: UpstreamErrorInfo & { status: number } = {
    message: readString(error.message) ?? 'Gemini request failed.',
    code: googleErrorCode(error),
    status: readNumber(error.code) ?? (rpcStatus !== undefined ? STATUS_BY_RPC[rpcStatus] : undefined) ?? 502,
  };
  if (rpcStatus !== undefined) out.type = rpcStatus;
  return out;
}

/**
 * Gemini error body (any status) -> message, type, code. The body is `{error:{...}}`, sometimes
 * wrapped in an array (streams without alt=sse); other shapes go to the shared reader.
 */
export function decodeGeminiError(status: number, body: unknown): UpstreamErrorInfo {
  const value = coerceErrorBody(body);
  const envelope = Array.isArray(value) ? value[0] : value;
  if (isRecord(envelope) && isRecord(envelope.error)) {
    const { status: _status, ...info } = decodeGoogleErrorObject(envelope.error);
    return info;
  }
  return readErrorBody(status, body);
}
