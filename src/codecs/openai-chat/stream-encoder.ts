/**
 * Internal stream events -> `chat.completion.chunk` frames, one event at a time (chat surface).
 * Grammar (https://platform.openai.com/docs/api-reference/chat-streaming): a first chunk with
 * `delta.role`, content / tool_calls deltas, a chunk with an empty delta and `finish_reason`,
 * the `choices: []` usage chunk only when the client asked `stream_options.include_usage`,
 * then `data: [DONE]`. Data-only frames: chat streams carry no `event:` lines.
 */
import type { CodecError, SseFrame, StreamEncoder } from '../codec.js';
import type { Conversation, FinishReason, StreamEvent, Usage } from '../internal.js';
import { writeOpenAiFinishReason } from '../shared/finish-reasons.js';
import { generateId, nowSeconds, withIdPrefix } from '../shared/ids.js';
import { writeThinkingBlock } from './reasoning-fields.js';
import { writeChatUsage } from './usage.js';
import type { ChatCompletionChunk, ChatDelta } from './wire-types.js';

interface BlockState {
  kind: 'text' | 'tool_call' | 'thinking' | 'redacted_thinking';
  /** Position among tool calls only (the chat `tool_calls[].index`), for tool blocks. */
  toolIndex?: number;
  /** Thinking text so far, repeated whole in `thinking_blocks` when the block ends. */
  thinking?: string;
  signature?: string;
}

/** Per-request encoder of a chat completions stream. */
export class ChatStreamEncoder implements StreamEncoder {
  private id = '';
  private created = 0;
  private started = false;
  private finished = false;
  private usageSent = false;
  private failed = false;
  private toolCount = 0;
  private readonly blocks = new Map<number, BlockState>();

  constructor(private readonly request: Conversation) {}

  encode(event: StreamEvent): SseFrame[] {
    const frames: SseFrame[] = [];
    if (!this.started && event.type !== 'error') frames.push(...this.open(event.type === 'start' ? event : undefined));
    switch (event.type) {
      case 'start':
        break;
      case 'block_start':
        frames.push(...this.startBlock(event.index, event.block));
        break;
      case 'block_delta':
        frames.push(...this.deltaBlock(event.index, event.delta));
        break;
      case 'block_stop':
        frames.push(...this.stopBlock(event.index));
        break;
      case 'finish':
        frames.push(...this.finish(event.finishReason));
        break;
      case 'usage':
        frames.push(...this.usage(event.usage));
        break;
      case 'error':
        frames.push(...this.fail({ status: event.status, type: event.errorType, code: event.code ?? null, message: event.message }));
        break;
    }
    return frames;
  }

  end(): SseFrame[] {
    if (this.failed) return [];
    const frames: SseFrame[] = [];
    if (!this.started) frames.push(...this.open(undefined));
    if (!this.finished) frames.push(...this.finish('stop'));
    frames.push({ data: '[DONE]' });
    return frames;
  }

  fail(error: CodecError): SseFrame[] {
    if (this.failed) return [];
    this.failed = true;
    // The OpenAI SDK throws on any data object with an `error` key.
    return [{ data: JSON.stringify({ error: { message: error.message, type: error.type, code: error.code ?? null } }) }];
  }

  private open(start: Extract<StreamEvent, { type: 'start' }> | undefined): SseFrame[] {
    this.started = true;
    this.id = withIdPrefix('chatcmpl-', start?.id || generateId(''));
    this.created = start?.created ?? nowSeconds();
    return [this.chunk({ role: 'assistant', content: '', refusal: null }, null)];
  }

  private startBlock(index: number, block: Extract<StreamEvent, { type: 'block_start' }>['block']): SseFrame[] {
    if (block.type === 'tool_call') {
      const toolIndex = this.toolCount++;
      this.blocks.set(index, { kind: 'tool_call', toolIndex });
      return [this.chunk({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }, null)];
    }
    if (block.type === 'redacted_thinking') {
      this.blocks.set(index, { kind: 'redacted_thinking' });
      return [this.chunk({ thinking_blocks: [writeThinkingBlock({ type: 'redacted_thinking', data: block.data })] }, null)];
    }
    this.blocks.set(index, block.type === 'thinking' ? { kind: 'thinking', thinking: '' } : { kind: 'text' });
    return [];
  }

  private deltaBlock(index: number, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): SseFrame[] {
    const block = this.blocks.get(index);
    switch (delta.type) {
      case 'text':
        return delta.text === '' ? [] : [this.chunk({ content: delta.text }, null)];
      case 'arguments':
        if (block?.toolIndex === undefined || delta.partialJson === '') return [];
        return [this.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partialJson } }] }, null)];
      case 'thinking':
        if (block) block.thinking = (block.thinking ?? '') + delta.text;
        return delta.text === '' ? [] : [this.chunk({ reasoning_content: delta.text }, null)];
      case 'signature':
        if (block) block.signature = (block.signature ?? '') + delta.signature;
        return [];
    }
  }

  private stopBlock(index: number): SseFrame[] {
    const block = this.blocks.get(index);
    if (block?.kind !== 'thinking' || !block.signature) return [];
    // The signed block, whole, so the client can send it back next turn (see reasoning-fields.ts).
    return [this.chunk({ thinking_blocks: [writeThinkingBlock({ type: 'thinking', text: block.thinking ?? '', signature: block.signature })] }, null)];
  }

  private finish(reason: FinishReason): SseFrame[] {
    if (this.finished) return [];
    this.finished = true;
    return [this.chunk({}, writeOpenAiFinishReason(reason))];
  }

  private usage(usage: Usage): SseFrame[] {
    if (!this.request.includeUsage || this.usageSent) return [];
    this.usageSent = true;
    const chunk: ChatCompletionChunk = {
      id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.request.model, choices: [], usage: writeChatUsage(usage),
    };
    return [{ data: JSON.stringify(chunk) }];
  }

  private chunk(delta: ChatDelta, finishReason: ChatCompletionChunk['choices'][number]['finish_reason']): SseFrame {
    const chunk: ChatCompletionChunk = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.request.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      // With include_usage, OpenAI puts `usage: null` on every chunk but the last.
      ...(this.request.includeUsage ? { usage: null } : {}),
    };
    return { data: JSON.stringify(chunk) };
  }
}
