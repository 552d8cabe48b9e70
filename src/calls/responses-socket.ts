/**
 * WebSocket mode of `/v1/responses` (Open Responses `x-openresponses-websocket`, 2026-04-24;
 * https://platform.openai.com/docs/guides/websocket-mode): one persistent socket over which the
 * client sends `response.create` events (the POST /v1/responses body plus `type`, without the
 * HTTP-only `stream`, `stream_options` and `background`) and receives, per turn, the same
 * streaming events an SSE stream carries, one JSON text message each. A turn that cannot start
 * is answered with `{type:'error', status, error:{type, code, message, param}}` (the
 * `WebSocketErrorEvent` schema) and the socket stays open for the next one.
 *
 * This module is the protocol only: a turn is run by `runTurn`, which sends the body through
 * the gateway's one call pipeline (auth, limits, budgets, metering, routing, stored responses),
 * exactly as a streamed POST /v1/responses would go. One turn runs at a time per socket, as on
 * OpenAI's API; closing the socket cancels the turn in flight.
 */
import type { ErrorCode } from '../errors/catalog.js';

/** The socket as the protocol uses it (the `ws` package's WebSocket fits). */
export interface ResponsesSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  readonly readyState: number;
}

/** The error body of a turn that could not start (the gateway's default envelope's `error`). */
export interface TurnError { type: string; code: string; message: string; param: string | null }

/** A refusal of the socket itself, its code from the error catalog (src/errors/catalog.ts). */
function invalid(code: ErrorCode, message: string, param: string | null = null): TurnError {
  return { type: 'invalid_request_error', code, message, param };
}

/** What running one turn gave: a refusal, or the data of its stream events in order. */
export type TurnOutcome =
  | { readonly kind: 'refused'; readonly status: number; readonly error: TurnError }
  | { readonly kind: 'events'; readonly events: AsyncIterable<string> };

/** Runs one turn's body (stream: true) through the call pipeline; aborting `signal` cancels it. */
export type TurnRunner = (body: Record<string, unknown>, signal: AbortSignal) => Promise<TurnOutcome>;

/** Fields of the HTTP form that a `response.create` event must not carry (the schema's `x-openresponses-disallowed`). */
const HTTP_ONLY_FIELDS = ['stream', 'stream_options', 'background'] as const;

const OPEN = 1;

/** Serves one accepted socket until it closes. */
export function serveResponsesSocket(ws: ResponsesSocket, runTurn: TurnRunner): void {
  let turn: AbortController | undefined;
  const send = (data: string): void => {
    if (ws.readyState === OPEN) ws.send(data);
  };
  const refuse = (status: number, error: TurnError): void => send(JSON.stringify({ type: 'error', status, error }));
  ws.on('error', () => turn?.abort());
  ws.on('close', () => turn?.abort());
  ws.on('message', (raw, isBinary) => {
    if (turn) return refuse(409, invalid('response_already_in_flight', 'A response is already in progress on this socket; wait for its final event (or open another socket).'));
    const parsed = readClientEvent(raw, isBinary);
    if ('error' in parsed) return refuse(400, parsed.error);
    const current = (turn = new AbortController());
    void run(parsed.body, current).finally(() => {
      if (turn === current) turn = undefined;
    });
  });

  async function run(body: Record<string, unknown>, current: AbortController): Promise<void> {
    try {
      const outcome = await runTurn(body, current.signal);
      if (outcome.kind === 'refused') return refuse(outcome.status, outcome.error);
      for await (const data of outcome.events) send(data);
    } catch {
      // The pipeline answers every failure it knows as a refusal or an in-band error event; a
      // throw here is the turn's transport failing (or the socket going away mid-turn).
      if (!current.signal.aborted) refuse(502, { type: 'upstream_error', code: 'upstream_error' satisfies ErrorCode, message: 'The response stream ended unexpectedly.', param: null });
    }
  }
}

/** A client message as a turn body, or the refusal it earns. */
function readClientEvent(raw: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): { body: Record<string, unknown> } | { error: TurnError } {
  if (isBinary) return { error: invalid('invalid_event', 'Client events are JSON text messages.') };
  const text = Array.isArray(raw) ? Buffer.concat(raw).toString('utf8') : Buffer.from(raw as ArrayBuffer).toString('utf8');
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    return { error: invalid('malformed_json', 'The message is not valid JSON.') };
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return { error: invalid('invalid_event', 'A client event is a JSON object.') };
  const { type, ...body } = event as Record<string, unknown>;
  if (type !== 'response.create') {
    return { error: invalid('unknown_event_type', `Unknown client event type '${String(type)}'; this socket takes 'response.create'.`, 'type') };
  }
  for (const field of HTTP_ONLY_FIELDS) {
    if (field in body) return { error: invalid('unsupported_parameter', `'${field}' is not used over WebSocket: every response streams its events on the socket.`, field) };
  }
  return { body: { ...body, stream: true } };
}
