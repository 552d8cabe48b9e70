import { errors } from '../errors/gateway-error.js';
import type { OperationResult } from '../providers/types.js';
import { buildCall } from './resolve-model.js';
import type { GatewayState } from './state.js';

/**
 * Polls an asynchronous job of the caller (extension: GET /v1/video/generations/{id}). The job
 * names its model; the model's provider answers the route's operation (e.g.
 * `video.generations.poll`). Another key's job is a 404 like an unknown one.
 */
export async function pollJob(gw: GatewayState, id: string): Promise<OperationResult> {
  const job = await gw.services.jobs.get(id);
  if (!job || job.owner !== gw.owner) throw errors.notFound(`No job '${id}'.`, 'job_not_found');
  const entry = gw.runtime.models.get(job.model);
  const operation = entry?.provider.impl.operations?.[gw.route.spec.operation];
  if (!entry || !operation) throw errors.notFound(`Job '${id}' can no longer be polled.`, 'job_not_found');
  return operation(buildCall(gw, entry, { id }));
}
