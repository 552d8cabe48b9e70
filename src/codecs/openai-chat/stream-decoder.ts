/**
 * Upstream `chat.completion.chunk` frames -> internal stream events (openai-chat dialect).
 * https://platform.openai.com/docs/api-reference/chat-streaming
 * - tool calls accumulate by `tool_calls[].index`; parallel calls may interleave, so each index
 *   is its own internal block and stays open until the finish chunk;
 * - text and reasoning (`reasoning_content` / `reasoning`, non-standard) are blocks too; a text or
 *   thinking block closes when another kind of block starts;
 * - usage arrives on a final `choices: []` chunk (we always send include_usage) or, with some
 *   compatible servers, on the finish chunk; it is emitted after `finish`;
 * - `data: {"error":{...}}` is an in-band error; `data: [DONE]` ends the stream.
 * Stream-end rule: the terminal event is `[DONE]` (or, for servers that omit it, a finish_reason
 * followed by the usage chunk); a stream that ends without it, or a frame that is not JSON, ends
 * with an internal error event.
 */
import type { SseFrame, StreamDecoder } from '../codec.js';
import type { Conversation, StreamEvent, Usage } from '../internal.js';
import { upstreamStreamError } from '../../errors/upstream-failure.js';
import { statusForErrorType } from '../shared/error-body.js';
import { readOpenAiFinishReason } from '../shared/finish-reasons.js';
import { generateId, nowSeconds } from '../shared/ids.js';
import { isRecord, readNumber, readString } from '../shared/json.js';
import { readFrameObject, truncatedStreamError } from '../shared/stream-end.js';
import { readChatUsage } from './usage.js';

/** Per-request decoder of an upstream chat completions stream. */
export class ChatStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  private done = false;
  private failed = false;
  private usage: Usage | undefined;
  private usageSent = false;
  private nextIndex = 0;
  /** Open text or thinking block (at most one). */
  private open: { kind: 'text' | 'thinking'; index: number } | undefined;
  /** Open tool blocks by upstream tool-call index. */
  private readonly tools = new Map<number, { index: number; id: string }>();

  constructor(private readonly request: Conversation) {}

  decode(frame: SseFrame): StreamEvent[] {
    if (this.failed) return [];
    const data = frame.data.trim();
    if (data === '') return [];
    if (data === '[DONE]') {
      this.done = true;
      return this.complete();
    }
    const read = readFrameObject(frame);
    if (read === undefined) return [];
    if (read.error) return this.fail(read.error);
    const chunk = read.data;
    if (chunk.error !== undefined) return this.error(chunk.error);

    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    // Azure OpenAI opens with an annotation-only chunk (`choices: []`, `prompt_filter_results`,
    // empty id and model, created 0): it carries no answer, so the answer starts with the next.
    if (!this.started && choices.length === 0 && !isRecord(chunk.usage)) return [];
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({
        type: 'start',
        id: readString(chunk.id) || generateId('chatcmpl-'),
        model: readString(chunk.model) || this.request.model,
        created: readNumber(chunk.created) || nowSeconds(),
      });
    }
    if (isRecord(chunk.usage)) this.usage = readChatUsage(chunk.usage);

    const choice = choices.find((c) => isRecord(c) && (c.index === 0 || c.index === undefined));
    if (isRecord(choice)) {
      if (isRecord(choice.delta)) events.push(...this.readDelta(choice.delta));
      if (choice.finish_reason !== null && choice.finish_reason !== undefined && !this.finished) {
        events.push(...this.closeAll());
        this.finished = true;
        events.push({ type: 'finish', finishReason: readOpenAiFinishReason(choice.finish_reason) });
      }
    }
    if (this.finished && this.usage && !this.usageSent) {
      this.usageSent = true;
      events.push({ type: 'usage', usage: this.usage });
    }
    return events;
  }

  end(): StreamEvent[] {
    if (this.failed || this.done) return [];
    // Without [DONE], only a finish_reason plus the usage chunk (always asked for) is a whole answer.
    if (this.finished && this.usage) return this.complete();
    return this.fail(truncatedStreamError(this.finished ? 'the usage chunk or [DONE]' : 'a finish_reason and [DONE]'));
  }

  private fail(error: Extract<StreamEvent, { type: 'error' }>): StreamEvent[] {
    this.failed = true;
    return [error];
  }

  /** [DONE] or end after a finish: close what is open, then finish and usage if still pending. */
  private complete(): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!this.started) return events;
    if (!this.finished) {
      events.push(...this.closeAll());
      this.finished = true;
      events.push({ type: 'finish', finishReason: 'stop' });
    }
    if (this.usage && !this.usageSent) {
      this.usageSent = true;
      events.push({ type: 'usage', usage: this.usage });
    }
    return events;
  }

  private readDelta(delta: Record<string, unknown>): StreamEvent[] {
    const events: StreamEvent[] = [];
    const reasoning = readString(delta.reasoning_content) ?? readString(delta.reasoning);
    if (reasoning) events.push(...this.appendText('thinking', reasoning));
    const content = readString(delta.content);
    if (content) events.push(...this.appendText('text', content));
    const refusal = readString(delta.refusal);
    if (refusal) events.push(...this.appendText('text', refusal));
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, call] of delta.tool_calls.entries()) {
        if (isRecord(call)) events.push(...this.readToolCall(call, position));
      }
    }
    return events;
  }

  private appendText(kind: 'text' | 'thinking', text: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.open?.kind !== kind) {
      events.push(...this.closeOpen());
      this.open = { kind, index: this.nextIndex++ };
      events.push({ type: 'block_start', index: this.open.index, block: { type: kind } });
    }
    events.push({ type: 'block_delta', index: this.open.index, delta: kind === 'text' ? { type: 'text', text } : { type: 'thinking', text } });
    return events;
  }

  private readToolCall(call: Record<string, unknown>, position: number): StreamEvent[] {
    const events: StreamEvent[] = [];
    const key = readNumber(call.index) ?? position;
    const fn = isRecord(call.function) ? call.function : {};
    const id = readString(call.id);
    let block = this.tools.get(key);
    // Some compatible servers reuse index 0 for every call; a new id then means a new call.
    if (block && id && id !== block.id) {
      events.push({ type: 'block_stop', index: block.index });
      this.tools.delete(key);
      block = undefined;
    }
    if (!block) {
      events.push(...this.closeOpen());
      block = { index: this.nextIndex++, id: id || generateId('call_') };
      this.tools.set(key, block);
      events.push({ type: 'block_start', index: block.index, block: { type: 'tool_call', id: block.id, name: readString(fn.name) ?? '' } });
    }
    const args = readString(fn.arguments);
    if (args) events.push({ type: 'block_delta', index: block.index, delta: { type: 'arguments', partialJson: args } });
    return events;
  }

  private closeOpen(): StreamEvent[] {
    if (!this.open) return [];
    const index = this.open.index;
    this.open = undefined;
    return [{ type: 'block_stop', index }];
  }

  private closeAll(): StreamEvent[] {
    const events = this.closeOpen();
    for (const block of this.tools.values()) events.push({ type: 'block_stop', index: block.index });
    this.tools.clear();
    return events;
  }

  private error(raw: unknown): StreamEvent[] {
    const error = isRecord(raw) ? raw : {};
    const errorType = readString(error.type);
    const code = error.code;
    return this.fail(upstreamStreamError(readNumber(error.status) ?? statusForErrorType(errorType), {
      message: readString(error.message) ?? (typeof raw === 'string' ? raw : 'The provider reported an error mid-stream.'),
      ...(errorType ? { type: errorType } : {}),
      code: typeof code === 'string' ? code : typeof code === 'number' ? String(code) : null,
    }));
  }
}
