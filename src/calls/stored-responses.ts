/**
 * Stored responses on POST /v1/responses: references in the request are resolved from the
 * response store before anything else reads the body, and the answer (plain or streamed) is
 * stored afterwards unless the client sent `store: false`. Owner of everything is the calling
 * key's hash, so references never cross keys.
 */
import type { SseFrame, StreamEncoder, SurfaceCodec } from '../codecs/codec.js';
import { expandStoredReferences, findStoredReferences, listInputItems } from '../codecs/openai-responses/stored-input.js';
import { isRecord, type JsonObject } from '../codecs/shared/json.js';
import type { ModelEntry } from '../compile/runtime.js';
import type { ResponseStore } from '../store/response-store.js';
import type { GatewayState } from './state.js';
import { withData } from '../sse-frame.js';

/** The surface whose requests may refer to stored responses. */
const RESPONSES_SURFACE = 'openai-responses';

/** One request's use of the store: the expanded body, and how its answer gets stored. */
export interface StoredResponsesSession {
  /** The body with `previous_response_id` and item references resolved. */
  readonly body: Record<string, unknown>;
  /** The surface to encode with: stream answers are stored as their final event goes out. */
  wrap(surface: SurfaceCodec): SurfaceCodec;
  /** Stamps and stores a plain JSON answer (called with the answer before it is written). */
  finishAnswer(answer: unknown): void;
}

// Saves still running in this process, awaited by a follow-up that names them (a client may
// send its next turn the moment the final stream event arrives).
const pendingSaves = new Map<string, Promise<unknown>>();

/**
 * Resolves the stored references of a Responses request; undefined, at once (no promise to
 * await on every other model call), on other surfaces. Unknown references are a 400 naming
 * them, except for an OpenAI Responses upstream, which resolves the ids it issued itself
 * (same-format passthrough keeps them).
 */
export function openStoredResponses(gw: GatewayState, entry: ModelEntry, store: ResponseStore): Promise<StoredResponsesSession> | undefined {
  return gw.route.surface?.name === RESPONSES_SURFACE ? openSession(gw, entry, store) : undefined;
}

async function openSession(gw: GatewayState, entry: ModelEntry, store: ResponseStore): Promise<StoredResponsesSession> {
  const owner = gw.owner;
  const refs = findStoredReferences(gw.body);
  const keepUnknown = entry.provider.spec.type === RESPONSES_SURFACE;
  let body = gw.body;
  if (refs.previousResponseId !== undefined || refs.itemIds.length > 0) {
    // Item ids do not name their response, so every save of this key still running is awaited.
    await Promise.all([...pendingSaves].filter(([key]) => key.startsWith(`${owner}:`)).map(([, done]) => done));
    const previous = refs.previousResponseId !== undefined ? await store.load(owner, refs.previousResponseId) : undefined;
    const items = await store.loadItems(owner, refs.itemIds);
    body = expandStoredReferences(gw.body, previous, items, keepUnknown);
  }
  // Only an expansion that kept unknown references (keepUnknown) can leave any; unexpanded, they are `refs`.
  const left = body === gw.body ? refs : findStoredReferences(body);
  // store: false keeps nothing; a conversation whose references the upstream resolves is the upstream's to keep.
  if (gw.body.store === false || left.previousResponseId !== undefined || left.itemIds.length > 0) {
    return { body, wrap: (s) => s, finishAnswer: () => undefined };
  }
  const previousId = refs.previousResponseId ?? null;
  const input = listInputItems(body.input);
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const save = (response: JsonObject): void => {
    const id = typeof response.id === 'string' ? response.id : undefined;
    if (id === undefined || !['completed', 'incomplete'].includes(String(response.status))) return;
    const key = `${owner}:${id}`;
    // A failed save only means a later reference to it is a 400; the answer itself is unaffected.
    const done = store.save(owner, { id, input, ...(messages.length > 0 ? { messages } : {}), response }).catch(() => false).finally(() => pendingSaves.delete(key));
    pendingSaves.set(key, done);
  };
  const stamp = (response: JsonObject): void => {
    response.store = true;
    response.previous_response_id = previousId;
  };
  return {
    body,
    wrap: (surface) => ({
      ...surface,
      createStreamEncoder: (request) => storingEncoder(surface.createStreamEncoder(request), stamp, save),
    }),
    finishAnswer(answer) {
      if (!isRecord(answer) || answer.object !== 'response') return;
      stamp(answer);
      save(answer);
    },
  };
}

/** Wraps a Responses stream encoder: every response snapshot is stamped, the final one stored. */
function storingEncoder(inner: StreamEncoder, stamp: (r: JsonObject) => void, save: (r: JsonObject) => void): StreamEncoder {
  const rewrite = (frames: SseFrame[]): SseFrame[] => frames.map((frame) => {
    if (!frame.event?.startsWith('response.') || !frame.data.includes('"response":{')) return frame;
    const data = JSON.parse(frame.data) as JsonObject;
    if (!isRecord(data.response)) return frame;
    stamp(data.response);
    if (frame.event === 'response.completed' || frame.event === 'response.incomplete') save(data.response);
    return withData(frame, JSON.stringify(data));
  });
  return {
    encode: (event) => rewrite(inner.encode(event)),
    end: () => rewrite(inner.end()),
    fail: (error) => inner.fail(error),
  };
}
