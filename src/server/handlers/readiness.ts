import type { ParameterizedContext } from 'koa';
import type { Runtime } from '../../compile/runtime.js';
import type { Lifecycle, LifecycleState } from '../lifecycle.js';
import type { SharedServices } from '../services.js';
import type { AppState } from '../../calls/state.js';

/** What a readiness check can look at. */
export interface ReadinessInput { lifecycle: Lifecycle; runtime: Runtime; shared: SharedServices }

/** One check's contribution: fields added to the body, and `ready: false` to answer 503. */
export interface ReadinessPart { ready?: boolean; fields?: Record<string, unknown> }

/** A readiness check: extend the report by adding one to `readinessChecks`. */
export type ReadinessCheck = (input: ReadinessInput) => ReadinessPart | Promise<ReadinessPart>;

/** The body of GET /readyz: `status` first, then what the checks add. */
export interface ReadinessReport { status: LifecycleState | 'not_ready'; [field: string]: unknown }

/**
 * Checks beyond the lifecycle state (config, store and providers are ready once the state is
 * `ready`: the server marks it only after the shared services came up). Each adds its fields;
 * any `ready: false` turns the answer into 503 `not_ready`.
 */
const readinessChecks: ReadinessCheck[] = [reportFleet];

/**
 * Fleet agreement (issue 12.6): `config_hash`, `instance_id` and the store's kind and health, so
 * a balancer or an operator sees which instances run which config. An unreachable store makes
 * the instance unready only with `store.on_error: closed` (it cannot serve governed calls then).
 */
async function reportFleet({ runtime, shared }: ReadinessInput): Promise<ReadinessPart> {
  const info = await shared.fleet.describe();
  const closed = runtime.config.store.on_error === 'closed';
  return { ready: info.store.healthy || !closed, fields: { config_hash: info.config_hash, instance_id: info.instance_id, store: info.store } };
}

/** Builds the readiness report and its status code (200 ready, 503 otherwise). */
export async function reportReadiness(input: ReadinessInput): Promise<{ status: number; body: ReadinessReport }> {
  const state = input.lifecycle.state;
  let ready = state === 'ready';
  const fields: Record<string, unknown> = {};
  for (const check of readinessChecks) {
    const part = await check(input);
    if (part.ready === false) ready = false;
    Object.assign(fields, part.fields);
  }
  const status = state === 'ready' && !ready ? 'not_ready' : state;
  return { status: ready ? 200 : 503, body: { status, ...fields } };
}

/** GET /readyz: anonymous, never cached, never rate limited. */
export async function readiness(ctx: ParameterizedContext<AppState>, input: ReadinessInput): Promise<void> {
  const report = await reportReadiness(input);
  ctx.set('Cache-Control', 'no-store');
  ctx.status = report.status;
  ctx.body = report.body;
}
