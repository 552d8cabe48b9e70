import type { RawData, WebSocket } from 'ws';
import type { RealtimeClaims } from '../types.js';

/** Close code sent when the session reaches `max_duration_seconds` (normal closure). */
export const REALTIME_CLOSE_CODE = 1000;
/** Close reason sent with REALTIME_CLOSE_CODE. */
export const REALTIME_CLOSE_REASON = 'max_duration_reached';

/**
 * Serves one sandbox realtime session on an upgraded, already verified WebSocket: sends a
 * `session.created` event, echoes each text frame as `{type: 'echo', data}` (JSON parsed when it
 * is JSON, else the text) and each binary frame as the same bytes, and closes with 1000
 * `max_duration_reached` after `claims.max_duration_seconds`. The timer is cleared on close.
 * The budget is not metered: the sandbox is free; `max_budget_usd` is reported only.
 */
export function runSandboxRealtimeSession(socket: WebSocket, claims: RealtimeClaims): void {
  const startedAt = Date.now();
  const timer = setTimeout(() => {
    if (socket.readyState === socket.OPEN) socket.close(REALTIME_CLOSE_CODE, REALTIME_CLOSE_REASON);
  }, Math.max(0, claims.max_duration_seconds * 1000));
  timer.unref?.();
  socket.on('close', () => clearTimeout(timer));
  socket.on('error', () => clearTimeout(timer));
  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (socket.readyState !== socket.OPEN) return;
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
    if (isBinary) {
      socket.send(bytes, { binary: true });
      return;
    }
    const text = bytes.toString('utf8');
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* plain text is echoed as text */ }
    socket.send(JSON.stringify({ type: 'echo', data: parsed }));
  });
  socket.send(JSON.stringify({
    type: 'session.created',
    session: {
      id: claims.session,
      object: 'realtime.session',
      model: claims.model,
      max_duration_seconds: claims.max_duration_seconds,
      max_budget_usd: claims.max_budget_usd,
      ends_at: Math.floor(startedAt / 1000 + claims.max_duration_seconds),
    },
  }));
}
