import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/**
 * undici's Agent, its errors and its header parser, without the rest of the package. undici's
 * index also loads fetch, WebSocket, EventSource, the cache store, the mock agents and the
 * request/stream/pipeline APIs: 80-odd more modules and ~40 ms of every startup for code the
 * gateway never runs (every upstream call goes through `dispatch`, upstream-body.ts).
 * test/upstream/undici-core.test.ts checks that these are undici's own, so an upgrade that
 * moves them fails there, not in production.
 */
const require = createRequire(import.meta.url);

/** undici's Agent (a keep-alive pool per origin). */
export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
/** An undici Agent. */
export type Agent = Undici.Agent;
/** undici's error classes. */
export const errors = require('undici/lib/core/errors') as typeof Undici.errors;

/** undici's header parser: raw `[name, value, ...]` pairs to lower-cased names (repeats as arrays). */
export const parseHeaders = (require('undici/lib/core/util') as { parseHeaders(raw: readonly (Buffer | string)[]): Record<string, string | string[]> }).parseHeaders;
