import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/**
 * undici's Agent, its request API and its errors, without the rest of the package. undici's
 * index also loads fetch, WebSocket, EventSource, the cache store and the mock agents: 79 more
 * modules and ~40 ms of every startup for code the gateway never runs. The wiring is the
 * index's own (the request API mixed into Dispatcher.prototype, which the index repeats
 * harmlessly if it is loaded too); test/upstream/undici-core.test.ts checks that these are
 * undici's own classes, so an upgrade that moves them fails there, not in production.
 */
const require = createRequire(import.meta.url);
const dispatcher = require('undici/lib/dispatcher/dispatcher') as typeof Undici.Dispatcher;
Object.assign(dispatcher.prototype, require('undici/lib/api') as object);

/** undici's Agent (a keep-alive pool per origin). */
export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
/** An undici Agent. */
export type Agent = Undici.Agent;
/** undici's error classes. */
export const errors = require('undici/lib/core/errors') as typeof Undici.errors;

/** undici's header parser: raw `[name, value, ...]` pairs to lower-cased names (repeats as arrays). */
export const parseHeaders = (require('undici/lib/core/util') as { parseHeaders(raw: readonly (Buffer | string)[]): Record<string, string | string[]> }).parseHeaders;
