import type { GatewayError } from '../errors/gateway-error.js';
import { writeSseFrame } from '../sse-frame.js';
import type { GatewayState } from './state.js';

/**
 * The error event of a request's stream in its route surface's own terms (the event a stream
 * that failed upstream ends with), as SSE text; undefined for a route without a surface or a
 * body the surface cannot read again. The drain ends the streams its grace period cut with it.
 */
export function surfaceErrorEvent(gw: GatewayState | undefined, error: GatewayError): string | undefined {
  const surface = gw?.route?.surface;
  if (!surface) return undefined;
  const codecError = { status: error.status, type: error.type, code: error.code, message: error.message };
  try {
    return surface.createStreamEncoder(surface.decodeRequest(gw.body)).fail(codecError).map(writeSseFrame).join('');
  } catch {
    return undefined;
  }
}
