import type { Middleware } from 'koa';
import { createProxyEngine } from '../../calls/proxy/proxy-engine.js';
import { assertPassthroughAllowed, forwardedRequest } from '../../calls/proxy/passthrough-access.js';
import type { CompiledRoute } from '../../compile/runtime.js';
import type { SharedServices } from '../services.js';
import type { AppState } from '../../calls/state.js';
import { openKeySpend } from '../../calls/key-spend.js';

/**
 * The handler of pass-through routes (`operation: proxy`): the gateway's controls (provider
 * allowlist, budget, path rules), then the request streams to the provider through the
 * route's proxy, built once with its pipeline. A charge (`charge_usd`) is reserved before the
 * request goes and settled when the answer ends: in full when the provider answered, at zero
 * when it could not be reached. Errors before the answer are thrown, so they reach the client
 * in the route's envelope; once the provider's status is out, Koa steps aside.
 */
export function proxyHandler(route: CompiledRoute, shared: SharedServices): Middleware<AppState> {
  const plan = route.proxy;
  if (!plan) throw new Error(`route ${route.spec.file}: operation proxy without a compiled proxy plan`);
  const engine = plan.origin ? createProxyEngine(plan) : undefined;
  return async (ctx) => {
    const gw = ctx.state.gw;
    const record = gw.record;
    record.provider = plan.provider;
    assertPassthroughAllowed(plan, gw.key, record.route ?? route.spec.file);
    const forwarded = forwardedRequest(plan, ctx.req.url ?? '/', ctx.req.headers, gw.requestId);
    const charge = plan.chargeUsd ?? 0;
    const hold = gw.key ? openKeySpend(gw.key, gw.owner, shared) : undefined;
    if (hold && plan.chargeUsd !== undefined) await hold.reserve(charge, 0);
    ctx.req.url = forwarded.url;
    ctx.req.headers = forwarded.headers;
    record.costUsd = 0;
    record.attempts = 1;
    record.requestBytes = 0;
    record.responseBytes = 0;
    await engine!.forward(ctx.req, ctx.res, record, {
      // The provider answered: the charge holds (a failure before this settles at zero). Set
      // before the answer's bytes go out, so the record is complete when the response closes.
      answered: (headers) => {
        record.costUsd = charge;
        record.streamed = String(headers['content-type'] ?? '').startsWith('text/event-stream');
      },
      ended: (answered) => void hold?.settle(answered ? charge : 0, 0),
    });
    // Its status and headers are out and its body streams on: Koa writes nothing.
    ctx.respond = false;
  };
}
