/**
 * Internal stream events -> Messages SSE events (messages surface), as they arrive.
 * Grammar (https://docs.anthropic.com/en/docs/build-with-claude/streaming): message_start, ping,
 * per block content_block_start / content_block_delta* / content_block_stop with indices from 0,
 * message_delta (stop_reason + cumulative usage), message_stop. Every frame has `event:` equal to
 * its data's `type` (the TS SDK skips frames without one).
 *
 * Anthropic blocks never interleave, but internal blocks may (parallel OpenAI tool calls). The
 * block on the wire is "active"; events of blocks started meanwhile wait in a queue and are
 * written, in start order, as soon as the active block stops. Sequential streams (the usual case)
 * pass straight through.
 */
import type { CodecError, SseFrame, StreamEncoder } from '../codec.js';
import type { BlockDelta, BlockStart, Conversation, FinishReason, StreamEvent, Usage } from '../internal.js';
import { writeAnthropicStopReason } from '../shared/finish-reasons.js';
import { generateId, withIdPrefix } from '../shared/ids.js';
import { writeAnthropicUsage } from './usage.js';
import { toMessagesError } from '../../errors/surface-types.js';

interface PendingBlock { start: BlockStart; deltas: BlockDelta[]; stopped: boolean }

/** Per-request encoder of a messages stream. */
export class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private failed = false;
  private deltaSent = false;
  private startUsage: Partial<Usage> = {};
  private finish: { reason: FinishReason; stopSequence?: string } | undefined;
  private nextWireIndex = 0;
  /** Internal index of the block on the wire, with its wire index. */
  private active: { index: number; wire: number } | undefined;
  /** Blocks started while another was active, by internal index, in start order. */
  private readonly pending = new Map<number, PendingBlock>();

  constructor(private readonly request: Conversation) {}

  encode(event: StreamEvent): SseFrame[] {
    if (this.failed) return [];
    if (event.type === 'error') {
      return this.fail({ status: event.status, type: event.errorType, code: event.code ?? null, message: event.message });
    }
    const frames = this.started || event.type === 'start' ? [] : this.open(undefined);
    switch (event.type) {
      case 'start':
        frames.push(...this.open(event));
        break;
      case 'block_start':
        if (this.active || this.pending.size > 0) this.pending.set(event.index, { start: event.block, deltas: [], stopped: false });
        else frames.push(...this.startBlock(event.index, event.block));
        break;
      case 'block_delta': {
        const waiting = this.pending.get(event.index);
        if (waiting) waiting.deltas.push(event.delta);
        else if (this.active?.index === event.index) frames.push(...this.deltaFrames(this.active.wire, event.delta));
        break;
      }
      case 'block_stop': {
        const waiting = this.pending.get(event.index);
        if (waiting) waiting.stopped = true;
        else if (this.active?.index === event.index) frames.push(...this.stopActive(), ...this.drain(false));
        break;
      }
      case 'finish':
        this.finish = { reason: event.finishReason, ...(event.stopSequence !== undefined ? { stopSequence: event.stopSequence } : {}) };
        frames.push(...this.stopActive(), ...this.drain(true));
        break;
      case 'usage':
        frames.push(...this.stopActive(), ...this.drain(true), ...this.messageDelta(event.usage));
        break;
    }
    return frames;
  }

  end(): SseFrame[] {
    if (this.failed) return [];
    const frames = this.started ? [] : this.open(undefined);
    frames.push(...this.stopActive(), ...this.drain(true), ...this.messageDelta(undefined));
    frames.push(frame('message_stop', { type: 'message_stop' }));
    return frames;
  }

  fail(error: CodecError): SseFrame[] {
    if (this.failed) return [];
    this.failed = true;
    // Anthropic's SDK throws APIError with the event's error.type: it must be one of Anthropic's
    // types (overloaded_error, api_error, rate_limit_error ...), never a gateway-only one.
    return [frame('error', { type: 'error', error: { type: toMessagesError(error.status, error.type, error.code).type, message: error.message } })];
  }

  private open(start: Extract<StreamEvent, { type: 'start' }> | undefined): SseFrame[] {
    if (this.started) return [];
    this.started = true;
    this.startUsage = start?.usage ?? {};
    const message = {
      id: withIdPrefix('msg_', start?.id || generateId('')),
      type: 'message',
      role: 'assistant',
      model: this.request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: writeAnthropicUsage(this.startUsage),
    };
    return [frame('message_start', { type: 'message_start', message }), frame('ping', { type: 'ping' })];
  }

  private startBlock(index: number, block: BlockStart): SseFrame[] {
    const wire = this.nextWireIndex++;
    this.active = { index, wire };
    let contentBlock: Record<string, unknown>;
    switch (block.type) {
      case 'text': contentBlock = { type: 'text', text: '' }; break;
      case 'tool_call': contentBlock = { type: 'tool_use', id: block.id, name: block.name, input: {} }; break;
      case 'thinking': contentBlock = { type: 'thinking', thinking: '', signature: '' }; break;
      case 'redacted_thinking': contentBlock = { type: 'redacted_thinking', data: block.data }; break;
    }
    return [frame('content_block_start', { type: 'content_block_start', index: wire, content_block: contentBlock })];
  }

  private deltaFrames(wire: number, delta: BlockDelta): SseFrame[] {
    let payload: Record<string, unknown>;
    switch (delta.type) {
      case 'text': payload = { type: 'text_delta', text: delta.text }; break;
      // Fragments pass through untouched: concatenated they are the complete JSON input.
      case 'arguments': payload = { type: 'input_json_delta', partial_json: delta.partialJson }; break;
      case 'thinking': payload = { type: 'thinking_delta', thinking: delta.text }; break;
      case 'signature': payload = { type: 'signature_delta', signature: delta.signature }; break;
    }
    return [frame('content_block_delta', { type: 'content_block_delta', index: wire, delta: payload })];
  }

  private stopActive(): SseFrame[] {
    if (!this.active) return [];
    const { wire } = this.active;
    this.active = undefined;
    return [frame('content_block_stop', { type: 'content_block_stop', index: wire })];
  }

  /** Writes queued blocks in start order; stops at one still open unless `all` (end of message). */
  private drain(all: boolean): SseFrame[] {
    const frames: SseFrame[] = [];
    for (const [index, block] of this.pending) {
      this.pending.delete(index);
      frames.push(...this.startBlock(index, block.start));
      for (const delta of block.deltas) frames.push(...this.deltaFrames(this.active!.wire, delta));
      if (!block.stopped && !all) break;
      frames.push(...this.stopActive());
    }
    return frames;
  }

  /** message_delta: stop reason plus cumulative usage; written once, when usage or the end arrives. */
  private messageDelta(usage: Usage | undefined): SseFrame[] {
    if (this.deltaSent) return [];
    this.deltaSent = true;
    const reason = writeAnthropicStopReason(this.finish?.reason ?? 'stop');
    return [frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: reason, stop_sequence: reason === 'stop_sequence' ? this.finish?.stopSequence ?? null : null },
      usage: writeAnthropicUsage(usage ?? this.startUsage),
    })];
  }
}

function frame(event: string, data: Record<string, unknown>): SseFrame {
  return { event, data: JSON.stringify(data) };
}
