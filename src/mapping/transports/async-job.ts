import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors, GatewayError } from '../../errors/gateway-error.js';
import type { JobRecord, OperationCall, OperationResult } from '../../providers/types.js';
import { sendUpstream, type UpstreamResponse } from '../../upstream/http-client.js';
import { MappingCompileError } from '../compile-error.js';
import { toMedia } from '../media.js';
import { BASE_VARIABLES, compileRequest, requestScope, requestVariables, upstreamOf, type RequestBuilder } from '../request.js';
import { responseScope } from '../response.js';
import { authorizeCall, sendBuilt } from '../send.js';
import { compileTemplate } from '../template.js';
import type { JobSpec } from '../types.js';
import { badResponse, readBytes, readJson, throwIfFailed } from '../upstream-errors.js';
import { compileFields, compileValue, createSpecContext, type Evaluator } from '../value-spec.js';
import type { OperationFn, Transport } from './transport.js';
import { abortSignalOf } from '../../upstream/request-abort.js';

type JobStatus = JobRecord['status'];
const STATUSES: readonly JobStatus[] = ['queued', 'in_progress', 'completed', 'failed'];

/** What the gateway keeps in `JobRecord.upstream` for a mapped job. */
interface JobState { operation: string; id: string; object: string; fields: Record<string, unknown> }

/** One reading of the upstream job. */
interface Reading { status: JobStatus; error?: string; result?: Record<string, unknown> }

/**
 * `async-job`: submit (the mapping's request), then poll `job.poll` until the job is done or the
 * client's `max_wait_seconds` (default `job.default_wait_seconds`, 10) pass. The job is saved in
 * the gateway's JobStore under its own id: a finished job answers 200 with `result`; an
 * unfinished one 200 with its id and status `in_progress`, to be polled later with `<operation>.poll`
 * (GET /v1/video/generations/{id}). Polls back off from `interval_ms` (2 s) to
 * `max_interval_ms` (10 s) and honour Retry-After. A client that goes away stops the waiting,
 * not the job.
 */
export const asyncJobTransport: Transport = {
  name: 'async-job',
  compile({ operation, mapping, at, defaultAuth }) {
    const job = mapping.job;
    if (!job) throw new MappingCompileError(at, "transport async-job needs a 'job' block");
    const jobAt = [...at, 'job'];
    const waitField = job.wait_field ?? 'max_wait_seconds';
    const submit = compileRequest(mapping, at, { defaultAuth, reserved: [waitField] });
    const answerCtx = () => createSpecContext([...BASE_VARIABLES, 'id'], false);
    const readId = compileValue(job.id, [...jobAt, 'id'], answerCtx());
    const pollPath = compileTemplate(job.poll.path, new Set([...BASE_VARIABLES, 'id']));
    const readStatus = compileValue(job.status, [...jobAt, 'status'], answerCtx());
    const readError = job.error !== undefined ? compileValue(job.error, [...jobAt, 'error'], answerCtx()) : undefined;
    const result = compileResult(job, jobAt, answerCtx);
    const fields = job.fields ? compileFields(job.fields, [...jobAt, 'fields'], createSpecContext(BASE_VARIABLES, true)) : undefined;
    const timing = {
      defaultWait: job.default_wait_seconds ?? 10,
      maxWait: job.max_wait_seconds ?? 600,
      interval: job.interval_ms ?? 2000,
      maxInterval: job.max_interval_ms ?? 10_000,
    };
    const object = job.object ?? 'job';

    const read = async (answer: unknown, call: OperationCall, id: string): Promise<Reading> => {
      const scope = responseScope(answer, call, { id });
      const error = readError ? await readError(scope) : undefined;
      if (error !== undefined && error !== null) return { status: 'failed', error: typeof error === 'string' ? error : JSON.stringify(error) };
      let status: unknown;
      try {
        status = await readStatus(scope);
      } catch {
        status = undefined; // an upstream status the mapping does not know: still running
      }
      const known = STATUSES.includes(status as JobStatus) ? (status as JobStatus) : 'in_progress';
      if (known !== 'completed') return { status: known };
      return { status: known, result: await result(answer, call, id, submit) };
    };

    const poll = async (call: OperationCall, state: JobState): Promise<{ reading: Reading; retryAfterMs?: number }> => {
      const where = submit.locate(call, pollPath, requestVariables(call, upstreamOf(call), { id: state.id }));
      const method = job.poll.method ?? 'GET';
      const headers = { accept: 'application/json', ...where.headers };
      const authorizing = authorizeCall(call, where.url, method, headers);
      if (authorizing) await authorizing;
      const res = await sendUpstream({ provider: call.providerName, url: where.url, method, headers, signal: call.signal, timeoutMs: mapping.timeout_ms ?? call.timeoutMs });
      await throwIfFailed(res, call);
      const retryAfter = Number(res.header('retry-after'));
      return { reading: await read(await readJson(res, call), call, state.id), retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined };
    };

    const submitJob: OperationFn = async (call) => {
      const waitSeconds = readWait(call.body[waitField], waitField, timing);
      const started = Date.now();
      const built = await submit.build(call);
      const res = await sendBuilt(built, call, 'json', { timeoutMs: mapping.timeout_ms });
      await throwIfFailed(res, call);
      const answer = await readJson(res, call);
      const upstreamId = await readId(responseScope(answer, call));
      if (typeof upstreamId !== 'string' || upstreamId.length === 0) throw badResponse(call, 'a job without an id');
      const state: JobState = { operation, id: upstreamId, object, fields: fields ? await fields(requestScope(call, requestVariables(call, upstreamOf(call)))) : {} };
      const record: JobRecord = {
        id: `${job.id_prefix ?? 'job_'}${randomBytes(12).toString('hex')}`,
        owner: call.owner,
        provider: call.providerName,
        model: call.model.id,
        status: 'queued',
        created_at: Math.floor(started / 1000),
        upstream: { ...state },
        error: null,
      };
      let reading = await read(answer, call, upstreamId);
      let saved = await settle(record, reading, call);
      const deadline = started + waitSeconds * 1000;
      let interval = timing.interval;
      while (!isTerminal(reading.status) && Date.now() < deadline && !call.signal.aborted) {
        try {
          await sleep(Math.max(0, Math.min(interval, deadline - Date.now())), undefined, { signal: abortSignalOf(call.signal) });
        } catch {
          break; // the client went away: stop waiting; the job stays pollable
        }
        if (Date.now() >= deadline) break;
        let polled: Awaited<ReturnType<typeof poll>>;
        try {
          polled = await poll(call, state);
        } catch (e) {
          // A provider hiccup while waiting does not lose the job: answer its id and status instead.
          if (e instanceof GatewayError && e.status >= 500) break;
          throw e;
        }
        reading = polled.reading;
        saved = await settle(saved, reading, call);
        interval = Math.min(timing.maxInterval, Math.max(polled.retryAfterMs ?? 0, Math.round(interval * 1.5)));
      }
      const view = viewOf(saved);
      // SPEC 4: every POST answers 200 on success; an unfinished job says so in its `status`.
      return { kind: 'json', body: view };
    };

    const pollJob: OperationFn = async (call): Promise<OperationResult> => {
      const id = call.body.id;
      if (typeof id !== 'string' || id.length === 0) throw errors.invalidRequest("'id' must be a job id.", 'invalid_id');
      const record = await call.services.jobs.get(id);
      const state = record?.upstream as JobState | undefined;
      if (!record || record.owner !== call.owner || state?.operation !== operation) throw errors.notFound(`Job '${id}' was not found.`, 'job_not_found');
      if (isTerminal(record.status)) return { kind: 'json', body: viewOf(record) };
      const { reading } = await poll(call, state);
      return { kind: 'json', body: viewOf(await settle(record, reading, call)) };
    };

    return { operations: { [operation]: submitJob, [`${operation}.poll`]: pollJob } };
  },
};

function isTerminal(status: JobStatus): boolean {
  return status === 'completed' || status === 'failed';
}

function readWait(value: unknown, field: string, timing: { defaultWait: number; maxWait: number }): number {
  if (value === undefined || value === null) return Math.min(timing.defaultWait, timing.maxWait);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw errors.invalidRequest(`'${field}' must be an integer >= 1.`, 'invalid_field', { field });
  return Math.min(value, timing.maxWait);
}

/** Saves the job when its reading changed it; returns the record now stored. */
async function settle(record: JobRecord, reading: Reading, call: OperationCall): Promise<JobRecord> {
  if (record.status === reading.status && !reading.result && !reading.error) return record;
  if (isTerminal(record.status)) return record;
  const next: JobRecord = { ...record, status: reading.status };
  if (reading.status === 'failed') next.error = { code: 'job_failed', message: reading.error ?? 'The provider reported a failure.' };
  if (reading.result) next.result = reading.result;
  if (isTerminal(reading.status)) next.upstream = { ...record.upstream, completed_at: Math.floor(Date.now() / 1000) };
  await call.services.jobs.save(next);
  return next;
}

/** The client-facing job object (same shape as the sandbox's). */
function viewOf(record: JobRecord): Record<string, unknown> {
  const state = (record.upstream ?? {}) as Partial<JobState> & { completed_at?: number };
  const view: Record<string, unknown> = {
    id: record.id,
    object: state.object ?? 'job',
    status: record.status,
    model: record.model,
    created_at: record.created_at,
    ...(state.fields ?? {}),
  };
  if (record.status === 'completed') {
    view.completed_at = state.completed_at ?? Math.floor(Date.now() / 1000);
    view.result = record.result ?? {};
  }
  if (record.status === 'failed') view.error = record.error ?? { code: 'job_failed', message: 'The provider reported a failure.' };
  return view;
}

type ResultBuilder = (answer: unknown, call: OperationCall, id: string, submit: RequestBuilder) => Promise<Record<string, unknown>>;

function compileResult(job: JobSpec, at: ReadonlyArray<string | number>, ctx: () => ReturnType<typeof createSpecContext>): ResultBuilder {
  const spec = job.result ?? {};
  const url: Evaluator | undefined = spec.url !== undefined ? compileValue(spec.url, [...at, 'result', 'url'], ctx()) : undefined;
  const contentType = spec.content_type !== undefined ? compileValue(spec.content_type, [...at, 'result', 'content_type'], ctx()) : undefined;
  const downloadUrl = spec.download?.url !== undefined ? compileValue(spec.download.url, [...at, 'result', 'download', 'url'], ctx()) : undefined;
  const downloadPath = spec.download?.path !== undefined ? compileTemplate(spec.download.path, new Set([...BASE_VARIABLES, 'id'])) : undefined;
  return async (answer, call, id, submit) => {
    const scope = responseScope(answer, call, { id });
    const declared = contentType ? await contentType(scope) : undefined;
    if (downloadUrl || downloadPath) {
      const where = downloadPath
        ? submit.locate(call, downloadPath, requestVariables(call, upstreamOf(call), { id }))
        : await locateAbsolute(await downloadUrl!(scope), call, submit);
      const bytes = await download(where, call);
      const media = toMedia(bytes.bytes, typeof declared === 'string' ? declared : bytes.contentType, 'result');
      return { url: media.field('data_url'), content_type: media.contentType };
    }
    const out: Record<string, unknown> = {};
    const link = url ? await url(scope) : undefined;
    if (link !== undefined) out.url = link;
    if (typeof declared === 'string') out.content_type = declared;
    return out;
  };
}

/** An absolute download URL gets the provider key only on the provider's own origin. */
async function locateAbsolute(value: unknown, call: OperationCall, submit: RequestBuilder): Promise<{ url: string; headers: Record<string, string> }> {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) throw badResponse(call, 'a finished job without a download URL');
  const sameOrigin = call.baseUrl !== undefined && new URL(value).origin === new URL(call.baseUrl).origin;
  if (!sameOrigin) return { url: value, headers: {} };
  const credentials = submit.auth(call);
  const url = new URL(value);
  for (const [k, v] of Object.entries(credentials.query)) url.searchParams.set(k, v);
  return { url: url.toString(), headers: { ...(call.provider.headers ?? {}), ...credentials.headers } };
}

/** Downloads job content, following up to 3 redirects (the key is dropped when the origin changes). */
async function download(where: { url: string; headers: Record<string, string> }, call: OperationCall): Promise<{ bytes: Uint8Array; contentType?: string }> {
  let url = where.url;
  let headers = where.headers;
  for (let hop = 0; hop < 4; hop++) {
    const res: UpstreamResponse = await sendUpstream({ provider: call.providerName, url, method: 'GET', headers: { accept: '*/*', ...headers }, signal: call.signal, timeoutMs: call.timeoutMs });
    const location = res.header('location');
    if (res.status >= 300 && res.status < 400 && location) {
      res.body.destroy();
      const next = new URL(location, url);
      if (next.origin !== new URL(url).origin) headers = {};
      url = next.toString();
      continue;
    }
    await throwIfFailed(res, call);
    return { bytes: await readBytes(res, call), contentType: res.header('content-type') };
  }
  throw badResponse(call, 'too many redirects for a job result');
}
