import type { ParameterizedContext } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import { buildCall } from '../../calls/resolve-model.js';
import type { AppState } from '../../calls/state.js';
import { sendResult } from './model-call.js';

/**
 * GET of an asynchronous job (extension: GET /v1/video/generations/{id}). The job names its
 * model; the model's provider answers the route's operation (e.g. `video.generations.poll`).
 */
export async function pollJob(ctx: ParameterizedContext<AppState>): Promise<void> {
  const gw = ctx.state.gw;
  const id = String(ctx.params.id ?? '');
  const job = await gw.services.jobs.get(id);
  if (!job || job.owner !== gw.owner) throw errors.notFound(`No job '${id}'.`, 'job_not_found');
  const entry = gw.runtime.models.get(job.model);
  const operation = entry?.provider.impl.operations?.[gw.route.spec.operation];
  if (!entry || !operation) throw errors.notFound(`Job '${id}' can no longer be polled.`, 'job_not_found');
  sendResult(ctx, await operation(buildCall(gw, entry, { id })), {});
}
