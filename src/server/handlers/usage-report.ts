import type { Middleware } from 'koa';
import { ledgerFailure, ledgerNotConfigured } from './admin.js';
import { errors } from '../../errors/gateway-error.js';
import type { SharedServices } from '../services.js';
import type { AppState } from '../../calls/state.js';
import { queryUsage, readUsageQuery } from '../../ledger/usage-report.js';

/**
 * GET /v1/usage?from=&to=&group_by=: the ledger summed per group. An admin key sees every key;
 * a client key only its own rows (whatever it asks for).
 */
export function usageReport(shared: SharedServices): Middleware<AppState> {
  return async (ctx) => {
    const gw = ctx.state.gw;
    const ledger = shared.usageLedger;
    if (!ledger) throw ledgerNotConfigured('GET /v1/usage');
    const one = (v: unknown) => (Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v));
    const q = readUsageQuery({ from: one(ctx.query.from), to: one(ctx.query.to), by: one(ctx.query.group_by) });
    if ('error' in q) throw errors.invalidRequest(q.error, 'invalid_parameter', { param: q.param });
    const scoped = gw.admin ? q : { ...q, keyId: gw.record.keyId };
    if (one(ctx.query.interval) === 'day') scoped.daily = true;
    try {
      const data = await queryUsage(ledger.pool, scoped);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { object: 'list', from: q.from.toISOString(), to: q.to.toISOString(), group_by: q.by, data };
    } catch (e) {
      throw ledgerFailure(e);
    }
  };
}
