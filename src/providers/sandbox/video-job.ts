import type { JobRecord, JobStore } from '../types.js';
import { hashParts } from './hash.js';
import { buildPlaceholderMp4 } from './mp4.js';

/** A sandbox video job completes this long after creation, whatever process asks. */
export const VIDEO_RENDER_MS = 2000;
/** `upstream.operation` of sandbox video jobs. */
export const VIDEO_OPERATION = 'video.generations';

/** What the sandbox keeps in `JobRecord.upstream` for a video job. */
interface VideoJobState { operation: string; created_at_ms: number; duration_seconds: number; prompt: string }

function readState(job: JobRecord): VideoJobState {
  const upstream = job.upstream ?? {};
  return {
    operation: String(upstream.operation ?? ''),
    created_at_ms: typeof upstream.created_at_ms === 'number' ? upstream.created_at_ms : job.created_at * 1000,
    duration_seconds: typeof upstream.duration_seconds === 'number' ? upstream.duration_seconds : 0,
    prompt: typeof upstream.prompt === 'string' ? upstream.prompt : '',
  };
}

/** A new queued video job record (not saved). */
export function createVideoJob(fields: { id: string; owner: string; provider: string; model: string; durationSeconds: number; prompt: string; nowMs: number }): JobRecord {
  return {
    id: fields.id,
    owner: fields.owner,
    provider: fields.provider,
    model: fields.model,
    status: 'queued',
    created_at: Math.floor(fields.nowMs / 1000),
    upstream: { operation: VIDEO_OPERATION, created_at_ms: fields.nowMs, duration_seconds: fields.durationSeconds, prompt: fields.prompt },
    error: null,
  };
}

/** Whether a job record is a sandbox video job. */
export function isVideoJob(job: JobRecord): boolean {
  return readState(job).operation === VIDEO_OPERATION;
}

/**
 * The client-facing object of a job at time `nowMs`. The status derives from elapsed time only
 * (completed once VIDEO_RENDER_MS passed), so every process reports the same state.
 */
export function describeVideoJob(job: JobRecord, nowMs: number): Record<string, unknown> {
  const state = readState(job);
  const completesAtMs = state.created_at_ms + VIDEO_RENDER_MS;
  const completed = job.status === 'completed' || nowMs >= completesAtMs;
  const view: Record<string, unknown> = {
    id: job.id,
    object: 'video.generation',
    status: job.status === 'failed' ? 'failed' : completed ? 'completed' : 'in_progress',
    model: job.model,
    created_at: job.created_at,
    duration_seconds: state.duration_seconds,
  };
  if (job.status === 'failed') view.error = job.error ?? null;
  else if (completed) {
    view.completed_at = Math.floor(completesAtMs / 1000);
    const mp4 = buildPlaceholderMp4(hashParts(job.id, state.prompt).slice(0, 16));
    view.result = { url: `data:video/mp4;base64,${mp4.toString('base64')}`, content_type: 'video/mp4' };
  }
  return view;
}

/** Saves the completed state (status and result) once a job is done, so stores agree with clients. */
export async function settleVideoJob(job: JobRecord, view: Record<string, unknown>, jobs: JobStore): Promise<void> {
  if (view.status !== 'completed' || job.status === 'completed') return;
  await jobs.save({ ...job, status: 'completed', result: view });
}
