import type { ParameterizedContext } from 'koa';
import { pollJob as runPollJob } from '../../calls/poll-job.js';
import type { AppState } from '../../calls/state.js';
import { sendResult } from './model-call.js';

/** GET of an asynchronous job: polled by the call layer (src/calls/poll-job.ts), its result written here. */
export async function pollJob(ctx: ParameterizedContext<AppState>): Promise<void> {
  sendResult(ctx, await runPollJob(ctx.state.gw, String(ctx.params.id ?? '')), {});
}
