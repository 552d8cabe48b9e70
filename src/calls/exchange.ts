import type { ServerResponse } from 'node:http';
import type { AppState } from './state.js';

/**
 * What a call needs of the HTTP exchange it answers, without the web framework: the request's
 * state, the Node response the stream writer writes to, and `respond`, which the writer sets to
 * false once it has taken the response over. Koa's context satisfies it as it is.
 */
export interface CallExchange {
  readonly state: AppState;
  readonly res: ServerResponse;
  respond?: boolean;
}
