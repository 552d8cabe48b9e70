import type { SseFrame } from '../sse-frame.js';
import type { Conversation, InternalResponse, StreamEvent } from './internal.js';

/** The frame type codecs consume and produce: it sits below both upstream/ (which reads it) and codecs/. */
export type { SseFrame } from '../sse-frame.js';

/** An error as codecs see it, mirrors GatewayError's public fields. */
export interface CodecError { status: number; type: string; code?: string | null; message: string }

/**
 * A client-facing text format (chat completions, messages, responses, research, robotics).
 * Pure: no I/O, no config.
 */
export interface SurfaceCodec {
  readonly name: string;
  /** Client body (already schema-validated) -> internal form. Throws GatewayError (400) on what cannot be translated. */
  decodeRequest(body: Record<string, unknown>): Conversation;
  /** Internal answer -> the client's JSON body. */
  encodeResponse(response: InternalResponse, request: Conversation): Record<string, unknown>;
  /** A per-request encoder holding stream state. */
  createStreamEncoder(request: Conversation): StreamEncoder;
}

/** Turns internal stream events into the surface's own SSE grammar, as they arrive. */
export interface StreamEncoder {
  encode(event: StreamEvent): SseFrame[];
  /** Called once when the internal stream ended normally: terminators (`[DONE]`, ...). */
  end(): SseFrame[];
  /** Called once on a failure after headers were sent: the surface's own error event. */
  fail(error: CodecError): SseFrame[];
}

/** What a dialect needs to know about the model and provider it encodes for. */
export interface DialectTarget {
  /** The provider's own model name. */
  upstreamModel: string;
  /** Parameter names the model accepts (catalog `parameters`); others must not be sent. */
  supportedParameters: ReadonlySet<string>;
  /** Provider options from gateway.yaml (e.g. `anthropic_version`, `default_max_tokens`). */
  options: Readonly<Record<string, unknown>>;
}

/** An upstream HTTP request a dialect wants sent. `path` is appended to the provider's base URL. */
export interface DialectRequest { path: string; body: Record<string, unknown>; headers?: Record<string, string> }

/** An upstream wire format (openai-chat, anthropic-messages, gemini, openai-responses). Pure. */
export interface DialectCodec {
  readonly name: string;
  /** Header(s) carrying the provider key, e.g. `{authorization: 'Bearer k'}` or `{'x-api-key': k}`. */
  authHeaders(apiKey: string, options: Readonly<Record<string, unknown>>): Record<string, string>;
  /** Internal form -> upstream request. Streams always ask the upstream for usage. */
  encodeRequest(request: Conversation, target: DialectTarget): DialectRequest;
  /** Upstream JSON body -> internal answer. */
  decodeResponse(body: unknown, request: Conversation): InternalResponse;
  /** A per-request decoder of upstream SSE frames. */
  createStreamDecoder(request: Conversation): StreamDecoder;
  /** Upstream error body (any shape, possibly not JSON) -> message and upstream type/code. */
  decodeError(status: number, body: unknown): { message: string; type?: string; code?: string | null };
}

/** Turns upstream SSE frames into internal stream events. */
export interface StreamDecoder {
  decode(frame: SseFrame): StreamEvent[];
  /** The upstream stream ended; emit what is still pending (e.g. a usage event). */
  end(): StreamEvent[];
}
