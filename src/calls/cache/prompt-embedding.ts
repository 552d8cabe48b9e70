import { basename } from 'node:path';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { OperationResult } from '../../providers/types.js';
import { RequestAbort } from '../../upstream/request-abort.js';
import { elapsedMs, type RequestEvents, type RequestRecord } from '../request-record.js';
import type { GatewayState } from '../state.js';

/**
 * An operation run by the gateway on its own behalf through the call pipeline (model-call.ts
 * runOwnOperation): handed in, so the cache does not import the pipeline that imports it.
 */
export type OwnOperation<S> = (gw: GatewayState, shared: S) => Promise<{ readonly result: OperationResult }>;

/** What an embedding call needs besides the pipeline: the hub its request record is told to. */
export interface EmbeddingServices { events: RequestEvents }

/**
 * The embedding of a prompt's text by `model`, made through the gateway's own embeddings path:
 * the embeddings route's operation, routed, priced and charged to the asking key (its budget
 * and token limits; its model and provider allowlists too, since the text goes to that
 * provider), as a request of its own (`<request id>~embed`) whose record reaches the access
 * log, metrics and usage ledger like any embeddings call. Undefined when it could not be had:
 * no embeddings route, the key may not, the provider failed, the client left (the semantic
 * lookup is then skipped, never the request failed).
 */
export async function embedPrompt<S extends EmbeddingServices>(parent: GatewayState, shared: S, own: OwnOperation<S>, model: string, text: string): Promise<number[] | undefined> {
  const route = parent.runtime.routes.find((r) => r.spec.operation === 'embeddings' && r.spec.method === 'POST');
  if (!route || parent.abort.aborted) return undefined;
  const from = parent.record;
  const record: RequestRecord = {
    requestId: `${parent.requestId}~embed`, startedAt: Date.now(), startedAtMonotonic: performance.now(),
    method: 'POST', path: route.spec.path, route: basename(route.spec.file), operation: route.spec.operation,
    keyId: from.keyId, keyName: from.keyName, team: from.team, attempts: 0, streamed: false, clientAborted: false,
  };
  // Cancelled with the request it serves (the client left, or its deadline passed).
  const abort = new RequestAbort();
  const follow = () => abort.abort(parent.abort.reason);
  parent.abort.once('abort', follow);
  const gw: GatewayState = {
    runtime: parent.runtime, route, services: parent.services, requestId: record.requestId, abort,
    key: parent.key, owner: parent.owner, body: { model, input: text }, record,
  };
  try {
    const { result } = await own(gw, shared);
    record.status = result.kind === 'json' ? result.status ?? 200 : 200;
    return result.kind === 'json' && record.status < 300 ? firstVector(result.body) : undefined;
  } catch (e) {
    record.status = isGatewayError(e) ? e.status : 502;
    if (isGatewayError(e) && e.code) record.errorCode = e.code;
    return undefined;
  } finally {
    parent.abort.off('abort', follow);
    record.durationMs = elapsedMs(record);
    record.ttfbMs = record.durationMs;
    shared.events.emitFinished(record);
  }
}

/** `data[0].embedding` of an OpenAI-format embeddings answer, when it is a list of numbers. */
function firstVector(body: Record<string, unknown>): number[] | undefined {
  const data = body.data;
  const first = Array.isArray(data) ? (data[0] as { embedding?: unknown } | undefined) : undefined;
  const vector = first?.embedding;
  return Array.isArray(vector) && vector.length > 0 && vector.every((x) => typeof x === 'number') ? vector : undefined;
}
