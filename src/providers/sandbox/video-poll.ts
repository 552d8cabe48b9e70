import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { describeVideoJob, isVideoJob, settleVideoJob } from './video-job.js';

/**
 * `video.generations.poll` (body `{id}`): the current object of a sandbox video job, 200 whatever
 * its status. Unknown ids, other owners' jobs and non-video jobs -> 404 `job_not_found`.
 */
export async function pollVideo(call: OperationCall): Promise<OperationResult> {
  const id = call.body.id;
  if (typeof id !== 'string' || id.length === 0) throw errors.invalidRequest("'id' must be a video generation id.", 'invalid_id');
  const job = await call.services.jobs.get(id);
  if (!job || job.owner !== call.owner || !isVideoJob(job)) {
    throw errors.notFound(`Video generation '${id}' was not found.`, 'job_not_found');
  }
  const view = describeVideoJob(job, Date.now());
  await settleVideoJob(job, view, call.services.jobs);
  return { kind: 'json', body: view };
}
