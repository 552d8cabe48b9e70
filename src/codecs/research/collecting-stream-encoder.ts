import type { CodecError, SseFrame, StreamEncoder } from '../codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../internal.js';
import { StreamAnswer } from '../shared/stream-answer.js';

/** Renders a whole answer as the surface's JSON object. */
export type TaskRenderer = (response: InternalResponse, request: Conversation) => Record<string, unknown>;

/**
 * Stream encoder of the task surfaces (research, robotics). Their objects are not incremental, so
 * the stream is collected (shared/stream-answer.ts) and sent as ONE final SSE frame,
 * `data: <the whole object>`, when the internal stream ends: the same object a non-streaming
 * call returns. A failure is one `data: {"error":{message,type,code}}` frame (SPEC 2.5
 * envelope), as chat-style streams do.
 */
export class CollectingStreamEncoder implements StreamEncoder {
  private readonly collected = new StreamAnswer();
  private done = false;

  constructor(private readonly request: Conversation, private readonly render: TaskRenderer) {}

  encode(event: StreamEvent): SseFrame[] {
    if (this.done) return [];
    if (event.type === 'error') return this.fail({ status: event.status, type: event.errorType, code: event.code ?? null, message: event.message });
    this.collected.read(event);
    return [];
  }

  end(): SseFrame[] {
    if (this.done) return [];
    this.done = true;
    const response = this.collected.answer({ finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, created: Math.floor(Date.now() / 1000) });
    return [{ data: JSON.stringify(this.render(response, this.request)) }];
  }

  fail(error: CodecError): SseFrame[] {
    if (this.done) return [];
    this.done = true;
    return [{ data: JSON.stringify({ error: { message: error.message, type: error.type, code: error.code ?? null } }) }];
  }
}
