import type { RawData, WebSocket } from 'ws';
import { wsModule } from '../../upstream/ws-module.js';

/** Close code and reason when a relayed session reaches `max_duration_seconds` (same as the sandbox). */
export const RELAY_CLOSE_CODE = 1000;
export const RELAY_CLOSE_REASON = 'max_duration_reached';

/** Where and how the relay connects upstream. */
export interface RelayTarget {
  url: string;
  headers: Record<string, string>;
  /** Session length limit; both sockets close when it is reached. */
  maxDurationSeconds: number;
  /** How long the upstream handshake may take (default 15 s). */
  handshakeTimeoutMs?: number;
}

/**
 * Relays one accepted client WebSocket to a provider's realtime WebSocket: frames pass both
 * ways unchanged (text stays text, binary stays binary); client frames sent before the
 * upstream is open are queued. Either side closing closes the other; an upstream that refuses
 * or fails closes the client with 1011. At `maxDurationSeconds` both close with 1000
 * `max_duration_reached`. The provider key travels only on the upstream handshake.
 */
export function relayWebSocket(client: WebSocket, target: RelayTarget): WebSocket {
  const upstream = new (wsModule().WebSocket)(target.url, { headers: target.headers, perMessageDeflate: false, handshakeTimeout: target.handshakeTimeoutMs ?? 15_000 });
  const queued: Array<{ data: RawData; binary: boolean }> = [];
  let done = false;

  const finish = (code: number, reason: string): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    closeSocket(client, code, reason);
    closeSocket(upstream, code === 1011 ? 1000 : code, reason);
  };
  const timer = setTimeout(() => finish(RELAY_CLOSE_CODE, RELAY_CLOSE_REASON), Math.max(0, target.maxDurationSeconds * 1000));
  timer.unref?.();

  client.on('message', (data, binary) => {
    if (upstream.readyState === upstream.OPEN) upstream.send(data, { binary });
    else if (upstream.readyState === upstream.CONNECTING) queued.push({ data, binary });
  });
  client.on('close', (code, reason) => finish(sendableCode(code), reason.toString()));
  client.on('error', () => finish(1011, 'client_error'));

  upstream.on('open', () => {
    for (const frame of queued.splice(0)) upstream.send(frame.data, { binary: frame.binary });
  });
  upstream.on('message', (data, binary) => {
    if (client.readyState === client.OPEN) client.send(data, { binary });
  });
  upstream.on('unexpected-response', (_req, res) => {
    res.resume();
    finish(1011, `upstream_refused_${res.statusCode ?? 0}`);
  });
  upstream.on('close', (code, reason) => finish(sendableCode(code), reason.toString() || 'upstream_closed'));
  upstream.on('error', () => finish(1011, 'upstream_error'));
  return upstream;
}

/** Codes 1005/1006/1015 describe a close but may not be sent: they become 1000 / 1011. */
function sendableCode(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1006 || code === 1015 || code < 1000 || (code > 1014 && code < 3000) || code > 4999 || code === 1004) return 1011;
  return code;
}

function closeSocket(socket: WebSocket, code: number, reason: string): void {
  const text = Buffer.byteLength(reason) > 123 ? reason.slice(0, 120) : reason;
  if (socket.readyState === socket.OPEN) socket.close(code, text);
  else if (socket.readyState === socket.CONNECTING) socket.terminate();
}
