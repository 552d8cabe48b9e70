/**
 * Stored Responses (POST /v1/responses with `store` not false): the request's input items and the
 * response object, so a later request can continue with `previous_response_id` or point at single
 * items with `{type: 'item_reference', id}`. Every record belongs to an owner (the hash of the
 * calling key): a key never reads another key's responses or items.
 */

/** A JSON object as stored (plain data, JSON round-trippable). */
export type StoredJson = Record<string, unknown>;

/** One stored response. */
export interface StoredResponse {
  /** The response id (`resp_...`) the client received. */
  id: string;
  /** The request's input items, references already resolved (the whole conversation so far). */
  input: StoredJson[];
  /** Chat-style `messages` the request sent beside `input` (SPEC 4.4), which come first. */
  messages?: StoredJson[];
  /** The response object as the client received it. */
  response: StoredJson;
}

/** Bounds of the store (gateway.yaml `store.responses`). */
export interface ResponseStoreLimits {
  /** Seconds a stored response stays readable. */
  ttlSeconds: number;
  /** Largest stored response (input + response, JSON bytes); bigger ones are not stored. */
  maxBytes: number;
  /** Memory store only: total bytes kept; the oldest responses are evicted first. */
  maxTotalBytes: number;
}

/** Default bounds: a day, 4 MiB per response, 256 MiB in memory. */
export const DEFAULT_RESPONSE_STORE_LIMITS: ResponseStoreLimits = { ttlSeconds: 86_400, maxBytes: 4 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 };

/** Where stored responses live (memory or Redis); one contract, tested against both. */
export interface ResponseStore {
  /** Stores a response for its owner; false when it exceeds `maxBytes` (then nothing is stored). */
  save(owner: string, stored: StoredResponse): Promise<boolean>;
  /** The owner's stored response, or undefined (unknown, expired or another owner's). */
  load(owner: string, id: string): Promise<StoredResponse | undefined>;
  /** The owner's stored items by item id (input and output items with an `id`); unknown ids are absent. */
  loadItems(owner: string, ids: readonly string[]): Promise<Map<string, StoredJson>>;
}

/** Ids of the items of a stored response that `item_reference` can name. */
export function listItemIds(stored: StoredResponse): string[] {
  const output = Array.isArray(stored.response.output) ? (stored.response.output as unknown[]) : [];
  return [...stored.input, ...output].flatMap((item) => {
    const id = (item as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id.length > 0 ? [id] : [];
  });
}

/** The item with `id` inside a stored response (output first: it is what references usually name). */
export function findItem(stored: StoredResponse, id: string): StoredJson | undefined {
  const output = Array.isArray(stored.response.output) ? (stored.response.output as StoredJson[]) : [];
  return [...output, ...stored.input].find((item) => item?.id === id);
}
