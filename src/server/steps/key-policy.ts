import type { Middleware, Next, ParameterizedContext } from 'koa';
import { keyRateLimited } from '../../billing/billing-errors.js';
import type { KeyEntry } from '../../compile/runtime.js';
import type { RateDecision } from '../../store/rate-limiter.js';
import { deferRpm, MINUTE, UNLIMITED, type DeferredRpm, type KeyPolicyServices } from '../../calls/key-spend.js';
import type { AppState } from '../../calls/state.js';

/**
 * Step of key routes, right after authentication (before the body is read): the key's
 * requests-per-minute limit, 429 with Retry-After when over. The model allowlist
 * (assertModelAllowed) needs the body; token limits and budgets need the call's estimate, so
 * they are taken later through openKeySpend. For a model call of a key with a budget (and no
 * tpm) on a store that checks rates with reservations, the rpm check rides along with the
 * reservation (one round trip); a request refused before it (bad body, unknown model) is
 * counted afterwards without being refused.
 */
export function keyPolicy(services: KeyPolicyServices): Middleware<AppState> {
  return (ctx, next) => {
    const spec = ctx.state.gw.key?.spec;
    // Keys without an rpm limit pass straight on (no async frame of this step's own).
    if (spec?.rpm === undefined) return next();
    return checkRpm(ctx, next, spec, spec.rpm);
  };

  async function checkRpm(ctx: ParameterizedContext<AppState>, next: Next, spec: KeyEntry['spec'], rpm: number): Promise<void> {
    const gw = ctx.state.gw;
    const report = (d: RateDecision) => {
      ctx.set('x-ratelimit-limit-requests', String(rpm));
      ctx.set('x-ratelimit-remaining-requests', String(d.remaining));
    };
    if (services.ledger.checksRate && gw.route.spec.handler === 'model-call' && spec.budget !== undefined && spec.tpm === undefined) {
      const pending: DeferredRpm = { limit: rpm, decided: false, report };
      deferRpm(gw, pending);
      try {
        await next();
      } finally {
        if (!pending.decided) void services.limiter.hit(`rpm:${gw.owner}`, UNLIMITED, MINUTE).catch(() => undefined);
      }
      return;
    }
    const d = await services.limiter.hit(`rpm:${gw.owner}`, rpm, MINUTE);
    report(d);
    if (!d.allowed) throw keyRateLimited('rpm', rpm, d.retryAfterSeconds);
    await next();
  }
}
