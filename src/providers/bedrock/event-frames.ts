/**
 * Bedrock's event-stream messages written as server-sent events, so the gateway's SSE readers,
 * the dialect stream decoders and the same-format passthrough read them like any stream
 * (src/upstream/event-stream.ts cuts and checks the messages).
 * - ConverseStream: `event: <:event-type>` with the JSON payload; a modeled exception as
 *   `event: <:exception-type>` (`throttlingException` ...); an unmodeled error (`:message-type:
 *   error`) as `event: error` with `{code, message}`. The bedrock-converse decoder reads these.
 * - InvokeModelWithResponseStream of Claude: each `chunk` carries one Anthropic event as base64
 *   in `bytes`; it is written as that event (`event: <type>`, its JSON), exactly as Anthropic's
 *   own API streams it. Exceptions become Anthropic `error` events, so a Messages client sees
 *   its own error format mid-stream.
 */
import type { EventStreamMessage } from '../../upstream/event-stream.js';

/** One SSE event; data split on line breaks (each line its own `data:` field, as the SSE spec joins them). */
function sse(event: string, data: string): string {
  return `event: ${event}\ndata: ${data.includes('\n') ? data.replace(/\r?\n/g, '\ndata: ') : data}\n\n`;
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function header(message: EventStreamMessage, name: string): string | undefined {
  const value = message.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** A ConverseStream message as an SSE event for the bedrock-converse stream decoder. */
export function converseEventText(message: EventStreamMessage): string | undefined {
  const type = header(message, ':message-type') ?? 'event';
  if (type === 'exception') return sse(header(message, ':exception-type') ?? 'internalServerException', text(message.payload) || '{}');
  if (type === 'error') return sse('error', JSON.stringify({ code: header(message, ':error-code') ?? 'internalServerException', message: header(message, ':error-message') ?? 'Bedrock reported an error.' }));
  const event = header(message, ':event-type');
  return event === undefined ? undefined : sse(event, text(message.payload) || '{}');
}

/** Anthropic error types of Bedrock's stream exceptions (their statuses: 429, 529, 504, 400, 500). */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<string, string>> = {
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'overloaded_error',
  modelTimeoutException: 'timeout_error',
  validationException: 'invalid_request_error',
};

/** An Anthropic `error` event. */
function anthropicError(exceptionType: string, message: string): string {
  const type = ANTHROPIC_ERROR_TYPES[exceptionType] ?? 'api_error';
  return sse('error', JSON.stringify({ type: 'error', error: { type, message: `${message} (${exceptionType})` } }));
}

/** An InvokeModelWithResponseStream message of Claude as the Anthropic SSE event it carries. */
export function claudeChunkText(message: EventStreamMessage): string | undefined {
  const type = header(message, ':message-type') ?? 'event';
  if (type === 'exception') {
    const exception = header(message, ':exception-type') ?? 'internalServerException';
    let reason = 'Bedrock ended the stream.';
    try {
      const payload = JSON.parse(text(message.payload)) as { message?: unknown };
      if (typeof payload.message === 'string') reason = payload.message;
    } catch {
      // a payload that is not JSON: the exception's name says enough
    }
    return anthropicError(exception, reason);
  }
  if (type === 'error') return anthropicError(header(message, ':error-code') ?? 'internalServerException', header(message, ':error-message') ?? 'Bedrock reported an error.');
  if (header(message, ':event-type') !== 'chunk') return undefined;
  let bytes: unknown;
  try {
    bytes = (JSON.parse(text(message.payload)) as { bytes?: unknown }).bytes;
  } catch {
    bytes = undefined;
  }
  if (typeof bytes !== 'string') return sse('chunk', text(message.payload));
  const event = Buffer.from(bytes, 'base64').toString('utf8');
  // The event's own `type` names the SSE event, as on Anthropic's API.
  let name = 'message';
  try {
    const parsed = JSON.parse(event) as { type?: unknown };
    if (typeof parsed.type === 'string') name = parsed.type;
  } catch {
    // not JSON: passed on as it is; the Messages decoder reports the malformed event
  }
  return sse(name, event);
}
