import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { Observability } from '../../observability/observability.js';
import { refuseWhileDraining } from '../drain.js';
import type { Lifecycle } from '../lifecycle.js';
import type { RequestEvents } from '../../calls/request-record.js';
import type { AppState } from '../../calls/state.js';
import { answerFailure } from './error-boundary.js';
import { openRequestRecord } from './track-request.js';

/** What the front step needs: the process's request events, observability, logger and lifecycle. */
export interface FrontDeps {
  events: RequestEvents;
  observability: Pick<Observability, 'step'>;
  logger: Logger;
  lifecycle: Lifecycle;
  isProbe: (method: string, path: string) => boolean;
  /** The route pipeline in force (a reload swaps it). */
  handle: Middleware<AppState>;
}

/**
 * Everything every request runs before its route, in this order, as one Koa middleware: the
 * request record and id (openRequestRecord), the trace step (when tracing is on), the error boundary, `%2F`
 * read as `/` in paths, and the drain gate. One step instead of five: each middleware hop
 * costs a dispatch, a bound function and an async frame per request.
 */
export function frontStep(deps: FrontDeps): Middleware<AppState> {
  const { events, observability, logger, lifecycle, isProbe, handle } = deps;
  const guarded = async (ctx: ParameterizedContext<AppState>, next: Next): Promise<void> => {
    try {
      // Model ids contain a slash, and SDKs percent-encode it in paths (openai's
      // `models.retrieve('sandbox/echo-1')` asks for `/v1/models/sandbox%2Fecho-1`).
      if (ctx.path.includes('%')) decodeEncodedSlashes(ctx);
      refuseWhileDraining(ctx, lifecycle, isProbe);
      await handle(ctx, next);
    } catch (e) {
      answerFailure(ctx, e, logger);
    }
  };
  const traceStep = observability.step;
  if (!traceStep) {
    return (ctx, next) => {
      openRequestRecord(ctx, events, lifecycle);
      return guarded(ctx, next);
    };
  }
  return (ctx, next) => {
    openRequestRecord(ctx, events, lifecycle);
    return traceStep(ctx, () => guarded(ctx, next));
  };
}

/** Reads `%2F` in a path as `/`. */
function decodeEncodedSlashes(ctx: ParameterizedContext<AppState>): void {
  if (/%2f/i.test(ctx.path)) ctx.path = ctx.path.replace(/%2f/gi, '/');
}
