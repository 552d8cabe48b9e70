/**
 * ConverseStream events -> internal stream events
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
 * The binary event stream is read by the upstream layer; each message reaches this decoder as a
 * frame whose `event` is the message's `:event-type` (`messageStart`, `contentBlockStart`,
 * `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`) and whose `data` is its JSON
 * payload (the event struct itself). Exceptions arrive as frames named by their
 * `:exception-type` (`throttlingException` ...), an unmodeled error as an `error` frame with
 * `{code, message}`: both end the stream with an error event.
 * - Text and reasoning blocks have no start event: the first delta opens them. A toolUse block
 *   starts with `contentBlockStart` and streams its input as string fragments of JSON.
 * - `messageStop` carries the stop reason; `metadata` (usage) is the terminal event. A stream
 *   that ends without it, or a frame that is not JSON, ends with an internal error event.
 */
import type { SseFrame, StreamDecoder } from '../codec.js';
import type { BlockStart, Conversation, StreamEvent, Usage } from '../internal.js';
import { generateId, nowSeconds } from '../shared/ids.js';
import { asObject, isRecord, readNumber, readString } from '../shared/json.js';
import { readFrameObject, truncatedStreamError } from '../shared/stream-end.js';
import { streamExceptionEvent } from './error-decode.js';
import { readConverseStopReason, readConverseUsage } from './response-decode.js';

type OpenKind = 'text' | 'thinking' | 'tool_call' | 'redacted_thinking';

/** Per-request decoder of a ConverseStream answer. */
export class ConverseStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  private done = false;
  private nextIndex = 0;
  /** Upstream contentBlockIndex -> the internal block open for it. */
  private readonly open = new Map<number, { index: number; kind: OpenKind }>();
  private usage: Usage | undefined;

  constructor(private readonly request: Conversation) {}

  decode(frame: SseFrame): StreamEvent[] {
    if (this.done) return [];
    const read = readFrameObject(frame);
    if (read === undefined) return [];
    if (read.error) return this.fail(read.error);
    const data = read.data;
    const event = frame.event ?? '';
    if (event.endsWith('Exception')) return this.fail(streamExceptionEvent(event, data));
    if (event === 'error') return this.fail(streamExceptionEvent(readString(data.code) ?? 'internalServerException', data));
    const out: StreamEvent[] = [];
    this.start(out);
    switch (event) {
      case 'contentBlockStart': this.blockStart(data, out); break;
      case 'contentBlockDelta': this.blockDelta(data, out); break;
      case 'contentBlockStop': this.blockStop(readNumber(data.contentBlockIndex), out); break;
      case 'messageStop': this.finish(data, out); break;
      case 'metadata': this.metadata(data, out); break;
      default: break; // messageStart (already handled) and event types of newer API versions
    }
    return out;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    this.done = true;
    // No metadata event: the stream was cut (after messageStop too, the usage never came).
    return [truncatedStreamError('metadata')];
  }

  private fail(error: Extract<StreamEvent, { type: 'error' }>): StreamEvent[] {
    this.done = true;
    return [error];
  }

  private start(out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: 'start', id: generateId('bedrock-'), model: this.request.model, created: nowSeconds() });
  }

  private openBlock(upstream: number, block: BlockStart, out: StreamEvent[]): number {
    const index = this.nextIndex++;
    this.open.set(upstream, { index, kind: block.type });
    out.push({ type: 'block_start', index, block });
    return index;
  }

  private blockStart(data: Record<string, unknown>, out: StreamEvent[]): void {
    const upstream = readNumber(data.contentBlockIndex);
    const use = asObject(asObject(data.start).toolUse);
    if (upstream === undefined || this.open.has(upstream) || readString(use.toolUseId) === undefined) return;
    this.openBlock(upstream, { type: 'tool_call', id: readString(use.toolUseId)!, name: readString(use.name) ?? '' }, out);
  }

  private blockDelta(data: Record<string, unknown>, out: StreamEvent[]): void {
    const upstream = readNumber(data.contentBlockIndex);
    const delta = asObject(data.delta);
    if (upstream === undefined) return;
    const open = this.open.get(upstream);
    if (typeof delta.text === 'string') {
      const index = open?.kind === 'text' ? open.index : this.openBlock(upstream, { type: 'text' }, out);
      if (delta.text !== '') out.push({ type: 'block_delta', index, delta: { type: 'text', text: delta.text } });
    } else if (isRecord(delta.toolUse)) {
      const input = readString(delta.toolUse.input);
      if (open?.kind === 'tool_call' && input !== undefined && input !== '') out.push({ type: 'block_delta', index: open.index, delta: { type: 'arguments', partialJson: input } });
    } else if (isRecord(delta.reasoningContent)) {
      const reasoning = delta.reasoningContent;
      const redacted = readString(reasoning.redactedContent);
      if (redacted !== undefined) {
        if (open === undefined) this.openBlock(upstream, { type: 'redacted_thinking', data: redacted }, out);
        return;
      }
      const index = open?.kind === 'thinking' ? open.index : this.openBlock(upstream, { type: 'thinking' }, out);
      const text = readString(reasoning.text);
      const signature = readString(reasoning.signature);
      if (text !== undefined && text !== '') out.push({ type: 'block_delta', index, delta: { type: 'thinking', text } });
      if (signature !== undefined && signature !== '') out.push({ type: 'block_delta', index, delta: { type: 'signature', signature } });
    }
  }

  private blockStop(upstream: number | undefined, out: StreamEvent[]): void {
    const open = upstream !== undefined ? this.open.get(upstream) : undefined;
    if (open === undefined) return;
    this.open.delete(upstream!);
    out.push({ type: 'block_stop', index: open.index });
  }

  private closeAll(out: StreamEvent[]): void {
    for (const open of this.open.values()) out.push({ type: 'block_stop', index: open.index });
    this.open.clear();
  }

  private finish(data: Record<string, unknown>, out: StreamEvent[]): void {
    if (this.finished) return;
    this.finished = true;
    this.closeAll(out);
    const finishReason = readConverseStopReason(data.stopReason);
    const stopSequence = readString(asObject(data.additionalModelResponseFields).stop_sequence);
    out.push({ type: 'finish', finishReason, ...(finishReason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}) });
  }

  private metadata(data: Record<string, unknown>, out: StreamEvent[]): void {
    this.usage = readConverseUsage(data.usage);
    if (!this.finished) this.finish({}, out);
    this.done = true;
    out.push({ type: 'usage', usage: this.usage });
  }
}
