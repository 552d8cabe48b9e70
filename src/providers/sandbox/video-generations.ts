import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { readInteger, readNumber, readString } from './body-fields.js';
import { createVideoJob, describeVideoJob, settleVideoJob } from './video-job.js';
import { abortSignalOf } from '../../upstream/request-abort.js';

/** How long the call waits for the job when `max_wait_seconds` is absent. */
const DEFAULT_WAIT_SECONDS = 10;
const MAX_WAIT_SECONDS = 600;
const POLL_MS = 250;

/**
 * `video.generations`: an asynchronous job. The job is saved (status `queued`) in the gateway's
 * JobStore and completes VIDEO_RENDER_MS (2 s) after creation. The call polls every 250 ms for up
 * to `max_wait_seconds` (default 10): completed -> 200 with `result.url` (a data: URL of a
 * placeholder MP4, see mp4.ts); still running -> 200 with status `in_progress` and no result,
 * to be polled with `video.generations.poll`. A client disconnect stops the waiting.
 */
export async function generateVideo(call: OperationCall): Promise<OperationResult> {
  const body = call.body;
  const prompt = readString(body, 'prompt') ?? '';
  const hasMedia = Array.isArray(body.media) && body.media.length > 0;
  if (prompt.length === 0 && !hasMedia && typeof body.image_url !== 'string') {
    throw errors.invalidRequest("Send a 'prompt' or 'media' to generate a video from.", 'missing_prompt');
  }
  const durationSeconds = readNumber(body, 'duration_seconds');
  if (durationSeconds === undefined || durationSeconds <= 0) {
    throw errors.invalidRequest("'duration_seconds' is required and must be > 0.", 'invalid_duration', { field: 'duration_seconds' });
  }
  const waitSeconds = readInteger(body, 'max_wait_seconds', 1, MAX_WAIT_SECONDS) ?? DEFAULT_WAIT_SECONDS;
  const started = Date.now();
  const job = createVideoJob({
    id: `vid_${randomBytes(12).toString('hex')}`,
    owner: call.owner,
    provider: call.providerName,
    model: call.model.id,
    durationSeconds,
    prompt,
    nowMs: started,
  });
  await call.services.jobs.save(job);

  const deadline = started + waitSeconds * 1000;
  let view = describeVideoJob(job, Date.now());
  while (view.status === 'in_progress' && Date.now() < deadline && !call.signal.aborted) {
    try {
      await sleep(Math.min(POLL_MS, deadline - Date.now()), undefined, { signal: abortSignalOf(call.signal) });
    } catch {
      break; // client went away: stop waiting
    }
    view = describeVideoJob(job, Date.now());
  }
  await settleVideoJob(job, view, call.services.jobs);
  // SPEC 4: every POST answers 200 on success; an unfinished job says so in its `status`.
  return { kind: 'json', body: view };
}
