import { createRequire } from 'node:module';

/** The `ws` package's exports. */
export type WsModule = typeof import('ws');

let loaded: WsModule | undefined;

/**
 * The `ws` package, required on first use: only realtime sessions need it, and loading it with
 * the server cost ~14 ms of startup and ~1.4 MB of heap for every gateway, realtime or not.
 * `ws` is CommonJS, so a synchronous require serves callers that cannot wait.
 */
export function wsModule(): WsModule {
  return (loaded ??= createRequire(import.meta.url)('ws') as WsModule);
}
