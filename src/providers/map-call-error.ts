import type { OperationCall } from './types.js';
import { mapTransportError } from '../upstream/http-client.js';

/** mapTransportError for a failure while reading the body of an operation call's upstream answer. */
export function mapCallError(e: unknown, call: OperationCall): Error {
  return mapTransportError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal, timeouts: call.timeouts, trace: call.trace });
}
