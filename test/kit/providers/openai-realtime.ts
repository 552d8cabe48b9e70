/**
 * OpenAI's realtime WebSocket (`GET /v1/realtime?model=...` upgraded) as a kit handler dialect:
 * every handshake is recorded (refused ones too); a wrong key or a missing model is refused
 * with a 401 before the upgrade; an accepted socket sends `session.created`, then echoes each
 * frame (binary frames as they came, text frames as `fake.echo` events).
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HandlerDialect } from '../handler.js';
import { openAiErrorBody } from './openai-errors.js';

/** A realtime WebSocket the fake accepted (or refused). */
export interface RealtimeConnection { url: string; headers: IncomingMessage['headers']; frames: Array<{ data: Buffer; binary: boolean }>; socket?: WebSocket }

/** The realtime dialect and the way to end its sockets. */
export interface RealtimeServer { dialect: HandlerDialect; close(): void }

/**
 * The realtime endpoint accepting `key`, recording into `connections`; a refused handshake is
 * also a violation in `violations()` (the kit upstream's list, known once it runs).
 */
export function openAiRealtime(key: string, connections: RealtimeConnection[], violations: () => string[]): RealtimeServer {
  const wss = new WebSocketServer({ noServer: true });
  const dialect: HandlerDialect = {
    name: 'openai-realtime',
    // Plain HTTP never reaches this dialect: it only takes upgrades.
    match: () => false,
    handle: () => ({ status: 404, json: openAiErrorBody(404, 'realtime takes WebSocket upgrades only') }),
    errorBody: openAiErrorBody,
    upgrade: (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/v1/realtime') return false;
      const connection: RealtimeConnection = { url: req.url ?? '', headers: req.headers, frames: [] };
      connections.push(connection);
      if (String(req.headers.authorization ?? '') !== `Bearer ${key}` || !url.searchParams.get('model')) {
        violations().push(`openai: realtime handshake ${req.url ?? ''} refused (wrong key or no model)`);
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        connection.socket = ws;
        ws.send(JSON.stringify({ type: 'session.created', event_id: 'event_1', session: { object: 'realtime.session', model: url.searchParams.get('model') } }));
        ws.on('message', (data, binary) => {
          const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
          connection.frames.push({ data: bytes, binary });
          if (binary) ws.send(bytes, { binary: true });
          else ws.send(JSON.stringify({ type: 'fake.echo', received: JSON.parse(bytes.toString('utf8')) as unknown }));
        });
      });
      return true;
    },
  };
  return {
    dialect,
    close: () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}
