/**
 * One server-sent event, below every layer that handles one: upstream/ reads frames off the wire,
 * codecs/ decode and encode them, the stream pipeline in calls/ writes them to the client. Its wire
 * form and a copy with other data live here too. Pure.
 */

/** One server-sent event as written on (or read off) the wire. */
export interface SseFrame {
  event?: string;
  data: string;
  /**
   * The frame's exact wire text (blank line included) when it is forwarded as it came; a frame
   * whose data changes must not keep it (build the new frame with `withData`).
   */
  raw?: string;
}

/** Serializes one frame in SSE syntax (multi-line data split into several data: lines). */
export function writeSseFrame(frame: SseFrame): string {
  if (frame.raw !== undefined) return frame.raw;
  const data = frame.data.includes('\n') ? frame.data.split('\n').map((l) => `data: ${l}`).join('\n') : `data: ${frame.data}`;
  return frame.event ? `event: ${frame.event}\n${data}\n\n` : `${data}\n\n`;
}

/** The frame with other data (its wire text, if it had one, no longer applies). */
export function withData(frame: SseFrame, data: string): SseFrame {
  return frame.event !== undefined ? { event: frame.event, data } : { data };
}
