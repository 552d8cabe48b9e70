/**
 * WebSocket mode of `/v1/responses` (Open Responses `x-openresponses-websocket`, 2026-04-24;
 * https://platform.openai.com/docs/guides/websocket-mode): one persistent socket over which the
 * client sends `response.create` events (the POST /v1/responses body plus `type`, without the
 * HTTP-only `stream`, `stream_options` and `background`) and receives, per turn, the same
 * streaming events an SSE stream carries, one JSON text message each. A turn that cannot start
 * is answered with `{type:'error', status, error:{type, code, message, param}}` (the
 * `WebSocketErrorEvent` schema) and the socket stays open for the next one.
 *
 * This module is the protocol: a turn is run by `runTurn`, which sends the body through the
 * gateway's one call pipeline (auth, limits, budgets, metering, routing, stored responses) as a
 * streamed POST /v1/responses, and hands back that POST's answer; its SSE events (or its error
 * body) are read here. One turn runs at a time per socket, as on OpenAI's API; closing the
 * socket cancels the turn in flight.
 */
import type { ErrorCode } from '../errors/catalog.js';
import { splitSseBlocks } from '../upstream/sse-blocks.js';

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

/** The answer of one turn's POST /v1/responses: an event stream, or an error in the default envelope. */
export interface TurnAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: AsyncIterable<Buffer | string>;
}

/** Runs one turn's body (stream: true) through the call pipeline; aborting `signal` cancels it. */
export type TurnRunner = (body: Record<string, unknown>, signal: AbortSignal) => Promise<TurnAnswer>;

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
      const answer = await runTurn(body, current.signal);
      if (answer.status !== 200 || !answer.contentType.startsWith('text/event-stream')) return refuse(answer.status, errorOf(await readAll(answer.body)));
      for await (const data of eventData(answer.body)) send(data);
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

/** The data of each event of an SSE answer (comments, such as the cost note, and `[DONE]` left out). */
async function* eventData(body: AsyncIterable<Buffer | string>): AsyncIterable<string> {
  let text = '';
  for await (const chunk of utf8(body)) {
    const { frames, rest } = splitSseBlocks(text + chunk);
    text = rest;
    for (const frame of frames) if (frame.data.startsWith('{')) yield frame.data;
  }
}

async function readAll(body: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of utf8(body)) text += chunk;
  return text;
}

/** A body as text, a character cut between two chunks kept whole. */
async function* utf8(body: AsyncIterable<Buffer | string>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  for await (const chunk of body) yield typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
}

/** The `error` of a refused turn's body, in the WebSocketErrorEvent form. */
function errorOf(text: string): TurnError {
  try {
    const error = (JSON.parse(text) as { error?: Partial<TurnError> & { code?: string | null } }).error;
    if (error && typeof error.message === 'string') {
      const type = error.type ?? 'api_error';
      return { type, code: error.code ?? type, message: error.message, param: error.param ?? null };
    }
  } catch {
    // Not the gateway's JSON envelope: described below.
  }
  return { type: 'upstream_error', code: 'upstream_error', message: 'The response could not be started.', param: null };
}
