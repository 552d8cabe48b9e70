import type { GatewayError } from '../errors/gateway-error.js';
import { toMessagesError } from '../errors/surface-types.js';

/** The rendered form of an error: the only place error bodies are written. */
export interface RenderedError { status: number; headers: Record<string, string>; body: Record<string, unknown> }

/** Error body styles route files can name in `envelope:`. */
export type EnvelopeStyle = 'default' | 'messages';

/**
 * The envelope of an error answer: the route's own, else (an unknown path, or a request not
 * routed yet) Anthropic's for paths under /v1/messages, whose SDK reads only that shape.
 */
export function envelopeOf(routeEnvelope: EnvelopeStyle | undefined, path: string): EnvelopeStyle {
  return routeEnvelope ?? (path.startsWith('/v1/messages') ? 'messages' : 'default');
}

/** Renders an error in the route's envelope style (SPEC 2.5 default, 2.6 messages). */
export function renderError(error: GatewayError, style: EnvelopeStyle): RenderedError {
  const headers = { ...(error.headers ?? {}) };
  if (style === 'messages') {
    // Anthropic's SDK picks its error class by status and knows only Anthropic's types.
    const surface = toMessagesError(error.status, error.type, error.code);
    return {
      status: surface.status,
      headers,
      body: {
        type: 'error',
        error: {
          type: surface.type,
          message: error.message,
          code: error.code,
          ...(error.details ? { details: error.details } : {}),
        },
      },
    };
  }
  return {
    status: error.status,
    headers,
    body: { error: { message: error.message, type: error.type, code: error.code, ...(error.details ? { details: error.details } : {}) } },
  };
}
