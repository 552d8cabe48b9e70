import type { Middleware } from 'koa';
import { GatewayError } from '../../errors/gateway-error.js';
import type { SharedServices } from '../services.js';
import type { AppState } from '../../calls/state.js';
import { adminOperations } from '../../admin/admin-operations.js';
import { AdminConflict } from '../../admin/key-store.js';

/** 501 for the admin API and usage reports when no database is configured. */
export function ledgerNotConfigured(what: string): GatewayError {
  return new GatewayError(501, 'api_error', 'ledger_not_configured', `${what} needs the usage ledger: set ledger.url (postgres://...) in gateway.yaml and run \`gateway migrate\`.`);
}

/** A database failure as the client should see it: 503 when unreachable or not migrated. */
export function ledgerFailure(e: unknown): unknown {
  const code = (e as { code?: string }).code ?? '';
  if (code === '42P01' || code === '42883') return new GatewayError(503, 'api_error', 'ledger_not_migrated', 'The ledger database has no gateway tables yet: run `gateway migrate`.');
  if (/^(08|57P|53)/.test(code) || /^E(CONNREFUSED|CONNRESET|HOSTUNREACH|TIMEDOUT)$/.test(code) || /timeout|terminat|Connection/i.test((e as Error)?.message ?? '')) {
    return new GatewayError(503, 'api_error', 'ledger_unavailable', 'The ledger database is unreachable; retry shortly.', undefined, { 'Retry-After': '1' });
  }
  return e;
}

/**
 * The one handler of every /admin route: runs the operation the route file names (checked when
 * the app is built, so a typo fails at startup, not on first call).
 */
export function adminHandler(operation: string, shared: SharedServices): Middleware<AppState> {
  const run = adminOperations[operation];
  if (!run) throw new Error(`admin route: unknown operation '${operation}' (known: ${Object.keys(adminOperations).join(', ')})`);
  return async (ctx) => {
    const gw = ctx.state.gw;
    const ledger = shared.usageLedger;
    if (!ledger) throw ledgerNotConfigured('The admin API');
    try {
      const answer = await run({
        actor: gw.admin ?? 'unknown',
        params: (ctx as unknown as { params?: Record<string, string> }).params ?? {},
        query: ctx.query,
        body: gw.body,
        ledger,
        spend: shared.ledger,
        runtime: gw.runtime,
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.status = answer.status;
      ctx.body = answer.body;
    } catch (e) {
      if (e instanceof AdminConflict) throw new GatewayError(e.status, e.status === 404 ? 'not_found_error' : 'invalid_request_error', e.code, e.message);
      throw ledgerFailure(e);
    }
  };
}
