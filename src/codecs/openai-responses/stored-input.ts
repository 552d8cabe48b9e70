/**
 * Continuing stored responses (pure part): `previous_response_id` and `input` items of type
 * `item_reference` (https://platform.openai.com/docs/api-reference/responses/create) are replaced
 * by what they name, so the rest of the gateway only ever sees complete input. The server looks
 * the references up (calls/stored-responses.ts); this file finds and substitutes them.
 */
import { errors } from '../../errors/gateway-error.js';
import { isRecord, readString, type JsonObject } from '../shared/json.js';

/** What a request refers to in the response store. */
export interface StoredReferences {
  previousResponseId?: string;
  /** Ids of `item_reference` input items, in order (duplicates kept once). */
  itemIds: string[];
}

/** A stored response as the expansion needs it. */
export interface PreviousTurn { input: JsonObject[]; messages?: JsonObject[]; response: JsonObject }

/** The references a Responses body makes; empty when it makes none. */
export function findStoredReferences(body: JsonObject): StoredReferences {
  const previousResponseId = readString(body.previous_response_id);
  const itemIds = Array.isArray(body.input)
    ? [...new Set(body.input.flatMap((item) => (isRecord(item) && item.type === 'item_reference' && typeof item.id === 'string' ? [item.id] : [])))]
    : [];
  return { ...(previousResponseId !== undefined && previousResponseId.length > 0 ? { previousResponseId } : {}), itemIds };
}

/** The input of a body as a list of items (a string is one user message). */
export function listInputItems(input: unknown): JsonObject[] {
  if (typeof input === 'string') return input.length > 0 ? [{ type: 'message', role: 'user', content: input }] : [];
  return Array.isArray(input) ? input.filter(isRecord) : [];
}

/** The conversation a stored response ends: its input, then its output items. */
export function listConversationItems(turn: PreviousTurn): JsonObject[] {
  const output = Array.isArray(turn.response.output) ? turn.response.output.filter(isRecord) : [];
  return [...turn.input, ...output];
}

/**
 * The body with references replaced: the previous turn's conversation first, then the input
 * with each item_reference swapped for its item. `previous_response_id` is removed. An unknown
 * reference is a 400 naming it; `keepUnknown` leaves unknown references in place instead (for an
 * upstream that resolves its own ids).
 */
export function expandStoredReferences(
  body: JsonObject,
  previous: PreviousTurn | undefined,
  items: ReadonlyMap<string, JsonObject>,
  keepUnknown = false,
): JsonObject {
  const refs = findStoredReferences(body);
  if (refs.previousResponseId !== undefined && previous === undefined && !keepUnknown) {
    throw errors.invalidRequest(`previous_response_id: no stored response '${refs.previousResponseId}' for this key (unknown, expired, larger than store.responses.max_bytes, or created with store: false).`, 'previous_response_not_found', { param: 'previous_response_id', id: refs.previousResponseId });
  }
  const input = listInputItems(body.input).map((item, index) => {
    if (item.type !== 'item_reference') return item;
    const id = readString(item.id) ?? '';
    const found = items.get(id);
    if (found !== undefined) return found;
    if (keepUnknown) return item;
    throw errors.invalidRequest(`input[${index}]: item_reference '${id}' names no stored item for this key (unknown, expired, or its response was not stored: store: false or larger than store.responses.max_bytes).`, 'item_not_found', { param: `input[${index}].id`, id });
  });
  const out: JsonObject = { ...body, input: [...(previous ? listConversationItems(previous) : []), ...input] };
  // Chat-style messages are decoded before `input`, so the previous turn's ones lead.
  if (previous?.messages !== undefined && previous.messages.length > 0) {
    out.messages = [...previous.messages, ...(Array.isArray(body.messages) ? body.messages : [])];
  }
  if (previous !== undefined || !keepUnknown) delete out.previous_response_id;
  return out;
}
