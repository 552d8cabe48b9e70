/**
 * Upstream Messages SSE events -> internal stream events (anthropic-messages dialect).
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * - message_start carries the id, model and the prompt usage; message_delta carries the stop
 *   reason and CUMULATIVE usage (merged over message_start's, not added);
 * - text / tool_use / thinking / redacted_thinking blocks map 1:1; blocks of server tools
 *   (server_tool_use, web_search_tool_result ...) have no internal form and are skipped with
 *   their deltas; citations_delta is dropped;
 * - `event: error` is an in-band failure; ping and unknown events are ignored.
 * The event type is read from the data's `type` (equal to the `event:` line by the API's rule).
 * Stream-end rule: the terminal event is `message_stop`; a stream that ends without it, or an
 * event whose data is not JSON, ends with an internal error event (after the usage, when a
 * message_delta already carried it, so what was delivered is billed).
 */
import type { SseFrame, StreamDecoder } from '../codec.js';
import type { Conversation, FinishReason, StreamEvent, Usage } from '../internal.js';
import { upstreamStreamError } from '../../errors/upstream-failure.js';
import { statusForErrorType } from '../shared/error-body.js';
import { readAnthropicStopReason } from '../shared/finish-reasons.js';
import { generateId, nowSeconds } from '../shared/ids.js';
import { isRecord, readNumber, readString } from '../shared/json.js';
import { readFrameObject, truncatedStreamError } from '../shared/stream-end.js';
import { readAnthropicUsage } from './usage.js';

/** Per-request decoder of an upstream messages stream. */
export class MessagesStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  private stopped = false;
  private failed = false;
  private usage: Usage | undefined;
  private nextIndex = 0;
  /** Upstream block index -> internal block index, for the blocks we translate. */
  private readonly blocks = new Map<number, number>();

  constructor(private readonly request: Conversation) {}

  decode(frame: SseFrame): StreamEvent[] {
    if (this.failed || this.stopped) return [];
    const read = readFrameObject(frame);
    if (read === undefined) return [];
    if (read.error) {
      this.failed = true;
      return [read.error];
    }
    const data = read.data;
    switch (data.type ?? frame.event) {
      case 'message_start': return this.start(data.message);
      case 'content_block_start': return this.blockStart(data);
      case 'content_block_delta': return this.blockDelta(data);
      case 'content_block_stop': {
        const index = this.blocks.get(readNumber(data.index) ?? -1);
        if (index === undefined) return [];
        this.blocks.delete(readNumber(data.index)!);
        return [{ type: 'block_stop', index }];
      }
      case 'message_delta': return this.messageDelta(data);
      case 'message_stop': return this.complete();
      case 'error': return this.error(data.error);
      default: return [];
    }
  }

  end(): StreamEvent[] {
    if (this.failed || this.stopped) return [];
    this.failed = true;
    // Cut after the stop reason: the usage is known (billed), yet the stream never ended.
    const usage: StreamEvent[] = this.finished && this.usage ? [{ type: 'usage', usage: this.usage }] : [];
    return [...usage, truncatedStreamError('message_stop')];
  }

  private start(message: unknown): StreamEvent[] {
    if (this.started) return [];
    this.started = true;
    const m = isRecord(message) ? message : {};
    this.usage = readAnthropicUsage(m.usage);
    return [{
      type: 'start',
      id: readString(m.id) || generateId('msg_'),
      model: readString(m.model) ?? this.request.model,
      created: nowSeconds(),
      usage: this.usage,
    }];
  }

  private blockStart(data: Record<string, unknown>): StreamEvent[] {
    const upstream = readNumber(data.index);
    const block = isRecord(data.content_block) ? data.content_block : {};
    if (upstream === undefined) return [];
    const index = this.nextIndex;
    const events: StreamEvent[] = [];
    switch (block.type) {
      case 'text':
        events.push({ type: 'block_start', index, block: { type: 'text' } });
        if (typeof block.text === 'string' && block.text !== '') events.push({ type: 'block_delta', index, delta: { type: 'text', text: block.text } });
        break;
      case 'tool_use': {
        events.push({ type: 'block_start', index, block: { type: 'tool_call', id: readString(block.id) || generateId('toolu_'), name: readString(block.name) ?? '' } });
        // The start block carries `input: {}`; the real input streams as input_json_delta.
        if (isRecord(block.input) && Object.keys(block.input).length > 0) {
          events.push({ type: 'block_delta', index, delta: { type: 'arguments', partialJson: JSON.stringify(block.input) } });
        }
        break;
      }
      case 'thinking':
        events.push({ type: 'block_start', index, block: { type: 'thinking' } });
        if (typeof block.thinking === 'string' && block.thinking !== '') events.push({ type: 'block_delta', index, delta: { type: 'thinking', text: block.thinking } });
        if (typeof block.signature === 'string' && block.signature !== '') events.push({ type: 'block_delta', index, delta: { type: 'signature', signature: block.signature } });
        break;
      case 'redacted_thinking':
        events.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: readString(block.data) ?? '' } });
        break;
      default:
        return [];
    }
    this.nextIndex++;
    this.blocks.set(upstream, index);
    return events;
  }

  private blockDelta(data: Record<string, unknown>): StreamEvent[] {
    const index = this.blocks.get(readNumber(data.index) ?? -1);
    const delta = isRecord(data.delta) ? data.delta : {};
    if (index === undefined) return [];
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text !== '' ? [{ type: 'block_delta', index, delta: { type: 'text', text: delta.text } }] : [];
      case 'input_json_delta':
        return typeof delta.partial_json === 'string' && delta.partial_json !== ''
          ? [{ type: 'block_delta', index, delta: { type: 'arguments', partialJson: delta.partial_json } }]
          : [];
      case 'thinking_delta':
        return typeof delta.thinking === 'string' && delta.thinking !== '' ? [{ type: 'block_delta', index, delta: { type: 'thinking', text: delta.thinking } }] : [];
      case 'signature_delta':
        return typeof delta.signature === 'string' && delta.signature !== '' ? [{ type: 'block_delta', index, delta: { type: 'signature', signature: delta.signature } }] : [];
      default:
        return [];
    }
  }

  private messageDelta(data: Record<string, unknown>): StreamEvent[] {
    if (isRecord(data.usage)) this.usage = readAnthropicUsage(data.usage, this.usage);
    const delta = isRecord(data.delta) ? data.delta : {};
    if (this.finished || delta.stop_reason === undefined || delta.stop_reason === null) return [];
    this.finished = true;
    const events: StreamEvent[] = [...this.closeAll()];
    const finishReason: FinishReason = readAnthropicStopReason(delta.stop_reason);
    const stopSequence = readString(delta.stop_sequence);
    events.push({ type: 'finish', finishReason, ...(finishReason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}) });
    return events;
  }

  /** message_stop (or the end after a stop reason): final usage, once. */
  private complete(): StreamEvent[] {
    if (this.stopped) return [];
    this.stopped = true;
    const events: StreamEvent[] = [...this.closeAll()];
    if (!this.finished) {
      this.finished = true;
      events.push({ type: 'finish', finishReason: 'stop' });
    }
    if (this.usage) events.push({ type: 'usage', usage: this.usage });
    return events;
  }

  private closeAll(): StreamEvent[] {
    const events: StreamEvent[] = [...this.blocks.values()].map((index) => ({ type: 'block_stop' as const, index }));
    this.blocks.clear();
    return events;
  }

  private error(raw: unknown): StreamEvent[] {
    this.failed = true;
    const error = isRecord(raw) ? raw : {};
    const errorType = readString(error.type) ?? 'api_error';
    // Anthropic's in-band errors carry no status: the type implies it (overloaded_error = 529).
    return [upstreamStreamError(statusForErrorType(errorType), { type: errorType, message: readString(error.message) ?? 'The provider reported an error mid-stream.' })];
  }
}
