import type { ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import { GatewayError, errors, gatewayError } from '../../errors/gateway-error.js';
import { envelopeOf, renderError } from '../envelope.js';

/**
 * Every failure becomes the route's envelope (the front step's error boundary). Unknown errors
 * are logged (message only, no secrets) and answered as a bare 500: no stack trace ever
 * reaches a client.
 */
export function answerFailure(ctx: ParameterizedContext, e: unknown, logger: Logger): void {
  const style = envelopeOf(ctx.state.gw?.route?.spec.envelope, ctx.path);
  const err = toGatewayError(e);
  // The access log, metrics and traces name what the client got.
  if (ctx.state.record) ctx.state.record.errorCode = err.code ?? err.type;
  // A client that went away makes its pending work fail: that is the access log's
  // `client_aborted` (info), not a gateway error.
  const clientGone = ctx.state.gw?.abort.aborted === true;
  if (err.status >= 500 && !(e instanceof GatewayError) && !clientGone) {
    logger.error({ requestId: ctx.state.gw?.requestId, path: ctx.path, err: { message: (e as Error)?.message } }, 'unhandled error');
  }
  if (ctx.headerSent || !ctx.writable) return;
  const rendered = renderError(err, style);
  ctx.status = rendered.status;
  ctx.set(rendered.headers);
  ctx.body = rendered.body;
}

/** Maps library errors (koa-body, Koa) onto the documented set. */
function toGatewayError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  const err = e as { status?: number; statusCode?: number; type?: string; limit?: number; message?: string; httpCode?: number };
  const status = err.status ?? err.statusCode ?? err.httpCode;
  if (status === 413 || err.type === 'entity.too.large') return errors.bodyTooLarge(err.limit ?? 0);
  if (status === 400 && (err.type === 'entity.parse.failed' || /JSON|Unexpected|invalid/i.test(err.message ?? ''))) {
    return errors.malformedJson(sanitize(err.message ?? 'parse error'));
  }
  if (status === 415) return gatewayError('unsupported_media_type', 'Unsupported content type or charset; send UTF-8 JSON.');
  if (status && status >= 400 && status < 500) return errors.invalidRequest(sanitize(err.message ?? 'Bad request.'));
  return errors.internal();
}

// Library messages can quote parts of the body; keep them short and single-line.
function sanitize(message: string): string {
  return message.split('\n')[0]!.slice(0, 200);
}
