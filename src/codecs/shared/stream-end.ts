/**
 * The stream-end rule, decoder side, shared by every dialect's stream decoder: a stream that
 * ends without its format's terminal event, or carries a frame that is not the JSON its format
 * requires, ends with an internal `error` event (never as if finished). The pipeline writes
 * that event as the client surface's own error frames (StreamEncoder.fail).
 */
import type { SseFrame } from '../codec.js';
import type { StreamEvent } from '../internal.js';
import { isRecord, parseJson } from './json.js';

/** An internal stream error event. */
export type StreamErrorEvent = Extract<StreamEvent, { type: 'error' }>;

/** The error event of a stream cut before its terminal event (`terminal` names it, for the message). */
export function truncatedStreamError(terminal: string): StreamErrorEvent {
  return {
    type: 'error',
    status: 502,
    errorType: 'upstream_error',
    code: 'upstream_stream_truncated',
    message: `The provider ended the stream before its end (${terminal}); the answer is incomplete.`,
    detected: true,
  };
}

/** The error event of a frame whose data is not the JSON object its format requires. */
export function malformedFrameError(frame: SseFrame): StreamErrorEvent {
  const shown = frame.data.length > 60 ? `${frame.data.slice(0, 60)}…` : frame.data;
  return {
    type: 'error',
    status: 502,
    errorType: 'upstream_error',
    code: 'invalid_upstream_response',
    message: `The provider sent a stream event that is not valid JSON${frame.event ? ` (event '${frame.event}')` : ''}: ${JSON.stringify(shown)}.`,
    detected: true,
  };
}

/** What a frame holds: its JSON object, or the error event of a malformed frame. */
export type FrameRead = { data: Record<string, unknown>; error?: undefined } | { data?: undefined; error: StreamErrorEvent };

/**
 * Reads the JSON object a frame carries; `undefined` for a frame with no data (keep-alives),
 * an `error` when the data is not a JSON object.
 */
export function readFrameObject(frame: SseFrame): FrameRead | undefined {
  const text = frame.data.trim();
  if (text === '') return undefined;
  const value = parseJson(text);
  return isRecord(value) ? { data: value } : { error: malformedFrameError(frame) };
}
