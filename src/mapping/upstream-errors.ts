import { readErrorBody } from '../codecs/shared/error-body.js';
import { errors, type GatewayError } from '../errors/gateway-error.js';
import { mapCallError } from '../providers/map-call-error.js';
import { readBody, upstreamFailure, type UpstreamResponse } from '../upstream/http-client.js';
import type { OperationCall } from '../providers/types.js';

/** Throws the gateway's error for a non-2xx upstream answer (its body is read and discarded). */
export async function throwIfFailed(res: UpstreamResponse, call: OperationCall): Promise<void> {
  if (res.status < 400) return;
  let body: unknown;
  try {
    body = await readBody(res);
  } catch {
    body = '';
  }
  throw upstreamFailure(call.providerName, res.status, res.headers, readErrorBody(res.status, body));
}

/** The whole upstream body as JSON; a body that is not JSON -> 502 `invalid_upstream_response`. */
export async function readJson(res: UpstreamResponse, call: OperationCall): Promise<unknown> {
  let text: string;
  try {
    text = await res.body.text();
  } catch (e) {
    throw mapCallError(e, call);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badResponse(call, 'an answer that is not JSON');
  }
}

/** The whole upstream body as bytes. */
export async function readBytes(res: UpstreamResponse, call: OperationCall): Promise<Uint8Array> {
  try {
    return new Uint8Array(await res.body.arrayBuffer());
  } catch (e) {
    throw mapCallError(e, call);
  }
}

/** 502 for an upstream answer the mapping cannot use. */
export function badResponse(call: OperationCall, what: string): GatewayError {
  return errors.invalidUpstreamResponse(call.providerName, what);
}
