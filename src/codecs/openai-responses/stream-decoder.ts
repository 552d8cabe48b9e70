import type { SseFrame, StreamDecoder } from '../codec.js';
import type { BlockDelta, BlockStart, Conversation, StreamEvent } from '../internal.js';
import { makeRandomSuffix } from './ids.js';
import { upstreamStreamError } from '../../errors/upstream-failure.js';
import { asArray, readNumber, asObject, readString, isRecord, type JsonObject } from '../shared/json.js';
import { readFrameObject, truncatedStreamError } from '../shared/stream-end.js';
import { packReasoningData } from './reasoning-data.js';
import { decodeFinishReason, decodeResponsesUsage } from './response-decode.js';

/** An internal block opened for one piece of an upstream output item. */
interface Block {
  index: number;
  outputIndex: number;
  /** Bytes of text / arguments already forwarded (to fill in from `.done` events when 0). */
  sent: number;
}

/**
 * Upstream Responses SSE -> internal stream events
 * (https://platform.openai.com/docs/api-reference/responses-streaming). Text parts, function calls,
 * reasoning summary parts and reasoning_text parts each become one block; a reasoning item's
 * encrypted content (known at output_item.done) becomes a redacted_thinking block. The terminal
 * response.completed / .incomplete carries the finish reason and the usage.
 * Stream-end rule: the terminal event is response.completed / .incomplete / .failed (or an
 * `error` event); a stream that ends without one, or an event that is not JSON, ends with an
 * internal error event.
 */
export class ResponsesStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  private nextIndex = 0;
  private sawToolCall = false;
  private refused = false;
  private readonly blocks = new Map<string, Block>();
  private readonly touchedOutputs = new Set<number>();

  constructor(private readonly request: Conversation) {}

  decode(frame: SseFrame): StreamEvent[] {
    if (this.finished) return [];
    const read = readFrameObject(frame);
    if (read === undefined) return [];
    if (read.error) {
      this.finished = true;
      return [read.error];
    }
    const data = read.data;
    if (isRecord(data.error) && data.type === undefined) return this.fail(data.error);
    const type = readString(data.type) ?? frame.event ?? '';
    const out: StreamEvent[] = [];
    if (type === 'response.created' || type === 'response.in_progress' || type === 'response.queued') {
      this.start(asObject(data.response), out);
      return out;
    }
    if (type === 'error') return this.fail(data);
    this.start({}, out);
    const outputIndex = readNumber(data.output_index) ?? 0;
    switch (type) {
      case 'response.output_item.added':
        this.addItem(outputIndex, asObject(data.item), out);
        break;
      case 'response.content_part.added':
        this.openBlock(`text:${outputIndex}:${readNumber(data.content_index) ?? 0}`, outputIndex, { type: 'text' }, out);
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (type === 'response.refusal.delta') this.refused = true;
        this.sendDelta(`text:${outputIndex}:${readNumber(data.content_index) ?? 0}`, outputIndex, { type: 'text' }, readString(data.delta) ?? '', out);
        break;
      case 'response.output_text.done':
      case 'response.refusal.done':
        this.fillIfEmpty(`text:${outputIndex}:${readNumber(data.content_index) ?? 0}`, outputIndex, { type: 'text' }, readString(data.text) ?? readString(data.refusal) ?? '', out);
        break;
      case 'response.content_part.done':
        this.closeBlock(`text:${outputIndex}:${readNumber(data.content_index) ?? 0}`, out);
        break;
      case 'response.function_call_arguments.delta':
        this.sendDelta(`call:${outputIndex}`, outputIndex, undefined, readString(data.delta) ?? '', out);
        break;
      case 'response.function_call_arguments.done':
        this.fillIfEmpty(`call:${outputIndex}`, outputIndex, undefined, readString(data.arguments) ?? '', out);
        break;
      case 'response.reasoning_summary_part.added':
        this.openBlock(`summary:${outputIndex}:${readNumber(data.summary_index) ?? 0}`, outputIndex, { type: 'thinking' }, out);
        break;
      case 'response.reasoning_summary_text.delta':
        this.sendDelta(`summary:${outputIndex}:${readNumber(data.summary_index) ?? 0}`, outputIndex, { type: 'thinking' }, readString(data.delta) ?? '', out);
        break;
      case 'response.reasoning_summary_text.done':
        this.fillIfEmpty(`summary:${outputIndex}:${readNumber(data.summary_index) ?? 0}`, outputIndex, { type: 'thinking' }, readString(data.text) ?? '', out);
        break;
      case 'response.reasoning_summary_part.done':
        this.closeBlock(`summary:${outputIndex}:${readNumber(data.summary_index) ?? 0}`, out);
        break;
      case 'response.reasoning_text.delta':
        this.sendDelta(`reasoning:${outputIndex}:${readNumber(data.content_index) ?? 0}`, outputIndex, { type: 'thinking' }, readString(data.delta) ?? '', out);
        break;
      case 'response.output_item.done':
        this.finishItem(outputIndex, asObject(data.item), out);
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.complete(asObject(data.response), out);
        break;
      default:
        break; // keepalives, annotations, built-in tool progress: nothing to forward
    }
    return out;
  }

  end(): StreamEvent[] {
    if (this.finished) return [];
    this.finished = true;
    return [truncatedStreamError('response.completed, response.incomplete or response.failed')];
  }

  private start(response: JsonObject, out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({
      type: 'start',
      id: readString(response.id) ?? `resp_${makeRandomSuffix()}`,
      model: readString(response.model) ?? this.request.model,
      created: readNumber(response.created_at) ?? Math.floor(Date.now() / 1000),
    });
  }

  private addItem(outputIndex: number, item: JsonObject, out: StreamEvent[]): void {
    if (item.type !== 'function_call') return;
    this.sawToolCall = true;
    const start: BlockStart = { type: 'tool_call', id: readString(item.call_id) ?? `call_${makeRandomSuffix()}`, name: readString(item.name) ?? '' };
    this.openBlock(`call:${outputIndex}`, outputIndex, start, out);
    const args = readString(item.arguments) ?? '';
    if (args.length > 0) this.sendDelta(`call:${outputIndex}`, outputIndex, undefined, args, out);
  }

  private openBlock(key: string, outputIndex: number, start: BlockStart, out: StreamEvent[]): Block {
    const existing = this.blocks.get(key);
    if (existing !== undefined) return existing;
    const block: Block = { index: this.nextIndex++, outputIndex, sent: 0 };
    this.blocks.set(key, block);
    this.touchedOutputs.add(outputIndex);
    out.push({ type: 'block_start', index: block.index, block: start });
    return block;
  }

  /** Forwards a fragment; `start` opens the block when the upstream skipped its `.added` event. */
  private sendDelta(key: string, outputIndex: number, start: BlockStart | undefined, text: string, out: StreamEvent[]): void {
    const block = this.blocks.get(key) ?? (start !== undefined ? this.openBlock(key, outputIndex, start, out) : undefined);
    if (block === undefined || text.length === 0) return;
    block.sent += text.length;
    const delta: BlockDelta = key.startsWith('call:') ? { type: 'arguments', partialJson: text }
      : key.startsWith('text:') ? { type: 'text', text } : { type: 'thinking', text };
    out.push({ type: 'block_delta', index: block.index, delta });
  }

  private fillIfEmpty(key: string, outputIndex: number, start: BlockStart | undefined, text: string, out: StreamEvent[]): void {
    const block = this.blocks.get(key);
    if (block !== undefined && block.sent > 0) return;
    this.sendDelta(key, outputIndex, start, text, out);
  }

  private closeBlock(key: string, out: StreamEvent[]): void {
    const block = this.blocks.get(key);
    if (block === undefined) return;
    this.blocks.delete(key);
    out.push({ type: 'block_stop', index: block.index });
  }

  /** Closes open blocks of one output item (or all, when `outputIndex` is undefined), in start order. */
  private closeAll(outputIndex: number | undefined, out: StreamEvent[]): void {
    const keys = [...this.blocks.entries()]
      .filter(([, b]) => outputIndex === undefined || b.outputIndex === outputIndex)
      .sort((a, b) => a[1].index - b[1].index)
      .map(([key]) => key);
    for (const key of keys) this.closeBlock(key, out);
  }

  private finishItem(outputIndex: number, item: JsonObject, out: StreamEvent[]): void {
    const untouched = !this.touchedOutputs.has(outputIndex);
    if (item.type === 'message' && untouched) {
      asArray(item.content).forEach((raw, contentIndex) => {
        const part = asObject(raw);
        const text = readString(part.text) ?? readString(part.refusal) ?? '';
        if (part.type === 'refusal') this.refused = true;
        this.sendDelta(`text:${outputIndex}:${contentIndex}`, outputIndex, { type: 'text' }, text, out);
      });
    } else if (item.type === 'function_call' && untouched) {
      this.addItem(outputIndex, item, out);
    } else if (item.type === 'reasoning' && untouched) {
      asArray(item.summary).forEach((raw, summaryIndex) => {
        this.sendDelta(`summary:${outputIndex}:${summaryIndex}`, outputIndex, { type: 'thinking' }, readString(asObject(raw).text) ?? '', out);
      });
    }
    this.closeAll(outputIndex, out);
    const encrypted = item.type === 'reasoning' ? readString(item.encrypted_content) : undefined;
    if (encrypted !== undefined && encrypted.length > 0) {
      const index = this.nextIndex++;
      out.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: packReasoningData(readString(item.id), encrypted) } });
      out.push({ type: 'block_stop', index });
    }
  }

  private complete(response: JsonObject, out: StreamEvent[]): void {
    this.closeAll(undefined, out);
    this.finished = true;
    if (response.status === 'failed') {
      const error = asObject(response.error);
      out.push(upstreamStreamError(502, { code: readString(error.code) ?? null, message: readString(error.message) ?? 'The upstream response failed.' }));
      return;
    }
    const hasToolCalls = this.sawToolCall || asArray(response.output).some((i) => asObject(i).type === 'function_call');
    out.push({ type: 'finish', finishReason: decodeFinishReason(response, hasToolCalls, this.refused) });
    out.push({ type: 'usage', usage: decodeResponsesUsage(response.usage) });
  }

  private fail(error: JsonObject): StreamEvent[] {
    this.finished = true;
    const type = readString(error.type);
    return [upstreamStreamError(readNumber(error.status) ?? 502, { ...(type ? { type } : {}), code: readString(error.code) ?? null, message: readString(error.message) ?? 'The upstream stream failed.' })];
  }
}
