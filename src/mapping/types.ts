/**
 * The operation-mapping vocabulary of gateway.yaml (`providers.<name>.operations.<operation>`),
 * as plain data. schemas/mapping.schema.json is the authoritative description; lint checks every
 * mapping against it. A mapping names one transport (implemented once in src/mapping/transports)
 * and says, declaratively, how a client body becomes the upstream request and how the upstream
 * answer becomes the gateway's normalized response.
 */

/**
 * A value: a constant (scalar), a template string (`"{upstream_model}"`, `"models/{name}"`), or
 * an object spec. Specs read from the current scope with `from` paths (dot separated; numbers
 * index arrays; `*` maps over an array; roots `$item`, `$index`, `$request`, `$bytes`).
 */
export type ValueSpec = string | number | boolean | null | SpecObject;

/** An object spec: one source, then transforms applied in the order the fields are listed here. */
export interface SpecObject {
  /** Applies only when every condition on the client body holds (field -> value or list; null = absent). */
  when?: Record<string, unknown>;
  /** Path(s) to read; with several, the first present wins and present ones must agree. */
  from?: string | string[];
  /** The first spec that yields a value. */
  first?: ValueSpec[];
  /** Every spec's value, concatenated into one array (arrays are flattened one level). */
  collect?: ValueSpec[];
  /** A constant (not templated). */
  const?: unknown;
  /** An explicit template string. */
  template?: string;
  /** Source value used when the source is absent (transforms still apply). */
  default?: unknown;
  /** Absent value -> 400 naming the field (true) or with this message. */
  required?: boolean | string;
  /** Present value -> 400 with this message (a parameter the upstream cannot honour). */
  refuse?: string;
  /** Keep array items where this item-relative path is present. */
  where?: string;
  /** Pick the array element at the index this path reads (e.g. `$item.index`); absent when out of range. */
  at?: string;
  /** Sort an array by an item-relative path; `-path` sorts descending. */
  sort?: string;
  /** Resolve media: `url` (http(s) via the SSRF-safe fetcher, data: URLs, {url}, {file_id}), `base64` (or a data: URL), `file` (a gateway file id of the caller). */
  load?: 'url' | 'base64' | 'file';
  /** File name template for loaded media (default `<field>.<ext>` from the sniffed type). */
  filename?: string;
  /** Value map (compared as strings); arrays map element-wise. */
  map?: Record<string, unknown>;
  /** A value not in `map`: `refuse` (400, default), `keep` or `drop`. */
  unmapped?: 'refuse' | 'keep' | 'drop';
  /** Multiply a number. */
  scale?: number;
  /** Conversion: array, string, number, integer, boolean, json, first, token_count, float32_base64 (little-endian float32 bytes, OpenAI's base64 embeddings). */
  as?: 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'json' | 'first' | 'token_count' | 'float32_base64';
  /** Spec applied to every array item (`$item`, `$index`). */
  each?: ValueSpec;
  /** Builds an object (target path -> spec); with a source, `$item` is the source value. */
  object?: Record<string, ValueSpec>;
}

/** How the provider key is sent (default: the provider type's own auth, else `Authorization: Bearer`). */
export type AuthSpec = 'none' | 'bearer' | { header: string; prefix?: string } | { query: string };

export interface RequestSpec {
  /** Start from the client body (minus `model`, gateway-only fields and fields read by `body`). */
  passthrough?: boolean;
  /** Client fields never forwarded by passthrough. */
  drop?: string[];
  /** Upstream body fields: dotted target path -> value. */
  body?: Record<string, ValueSpec>;
  /** multipart: how arrays are sent (`brackets`: repeated `key[]` parts, as openai-node does; `repeat`: repeated `key`). */
  array_parts?: 'brackets' | 'repeat';
}

export interface ResponseSpec {
  /** Start from the upstream JSON. */
  passthrough?: boolean;
  /** Normalized body fields: dotted target path -> value (scope: upstream JSON, `$request`). */
  body?: Record<string, ValueSpec>;
  /** binary: content type of the bytes (default: the upstream's Content-Type). */
  content_type?: ValueSpec;
  /** binary: answer JSON instead of bytes (always, or when every `when` condition holds). */
  envelope?: { when?: Record<string, unknown>; body: Record<string, ValueSpec> };
  /** json, multipart: answer one field of the normalized body as text/plain when every `when` condition holds. */
  text?: { when: Record<string, unknown>; from: string; headers?: Record<string, ValueSpec> };
}

export interface JobSpec {
  /** `object` of the normalized job (e.g. `video.generation`). */
  object?: string;
  /** Prefix of the gateway's job ids. */
  id_prefix?: string;
  /** Upstream job id in the submit answer. */
  id: ValueSpec;
  /** How to poll: `{id}` is the upstream id. */
  poll: { method?: 'GET' | 'POST'; path: string };
  /** Upstream status -> queued | in_progress | completed | failed (scope: poll answer). */
  status: ValueSpec;
  /** A present value marks the job failed with this message. */
  error?: ValueSpec;
  /** The result of a completed job. */
  result?: {
    /** A URL to hand out as is. */
    url?: ValueSpec;
    /** Fetch the content with the provider key: an absolute `url` (same origin as the base URL gets the key) or a `path` template. */
    download?: { url?: ValueSpec; path?: string };
    content_type?: ValueSpec;
  };
  /** Extra fields of the job object, from the client body at submit. */
  fields?: Record<string, ValueSpec>;
  /** Client field holding the wait (default `max_wait_seconds`); never forwarded. */
  wait_field?: string;
  default_wait_seconds?: number;
  max_wait_seconds?: number;
  interval_ms?: number;
  max_interval_ms?: number;
}

/** One operation mapping. */
export interface OperationMapping {
  transport: 'json' | 'multipart' | 'binary' | 'async-job' | 'websocket-relay';
  method?: 'GET' | 'POST' | 'DELETE';
  /** Path template appended to the provider base URL (`{upstream_model}`, `{field}`, `{field:-default}`). */
  path: string;
  query?: Record<string, ValueSpec>;
  headers?: Record<string, ValueSpec>;
  auth?: AuthSpec;
  request?: RequestSpec;
  response?: ResponseSpec;
  job?: JobSpec;
  timeout_ms?: number;
}
