import type { Middleware } from 'koa';
import type { CompiledRoute } from '../../compile/runtime.js';
import { describeErrors } from '../../config/request-findings.js';
import { errors } from '../../errors/gateway-error.js';
import type { AppState } from '../../calls/state.js';

/** Validates the body with the route's validator compiled at startup. */
export function validateBody(route: CompiledRoute): Middleware<AppState> {
  return (ctx, next) => {
    const gw = ctx.state.gw;
    const validate = gw.files !== undefined && route.validateMultipart ? route.validateMultipart : route.validate;
    if (validate && !validate(gw.body)) {
      const findings = describeErrors(validate.errors ?? []);
      const first = findings[0]!;
      const more = findings.length > 1 ? ` (and ${findings.length - 1} more problem${findings.length > 2 ? 's' : ''})` : '';
      throw errors.validation(`Invalid request: ${first.message}${more}.`, findings);
    }
    return next();
  };
}
