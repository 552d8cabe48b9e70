import type { CodecError, SseFrame, StreamEncoder } from '../codec.js';
import type { BlockStart, Conversation, FinishReason, StreamEvent, Usage } from '../internal.js';
import { makeItemId, makeRandomSuffix, makeSyntheticReasoningId, toResponseId } from './ids.js';
import type { JsonObject } from '../shared/json.js';
import { sealThinking, unpackReasoningData } from './reasoning-data.js';
import { describeFinish, makeOutputText, renderResponseObject, type ResponseSnapshot } from './response-object.js';

/** One internal block being streamed as one Responses output item. */
interface OpenItem {
  block: BlockStart;
  outputIndex: number;
  itemId: string;
  text: string;
  summaryStarted: boolean;
  /** Signature of a thinking block (Anthropic signature_delta), sealed into encrypted_content. */
  signature?: string;
}

/**
 * Internal stream events -> Responses SSE (https://platform.openai.com/docs/api-reference/responses-streaming).
 * Every frame has `event: <type>` and a JSON body with the same `type` and a `sequence_number`
 * counting from 0. Each internal block becomes one output item (output_index = order of start).
 * The stream ends with response.completed / response.incomplete / response.failed, never [DONE].
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private sequence = 0;
  private id = '';
  private createdAt = 0;
  private model: string;
  private started = false;
  private terminated = false;
  private readonly open = new Map<number, OpenItem>();
  private readonly output: JsonObject[] = [];
  private finishReason: FinishReason = 'stop';
  private usage: Usage | undefined;

  constructor(private readonly request: Conversation) {
    this.model = request.model;
  }

  encode(event: StreamEvent): SseFrame[] {
    if (this.terminated) return [];
    if (event.type === 'error') return this.fail({ status: event.status, type: event.errorType, code: event.code ?? null, message: event.message });
    const frames: SseFrame[] = event.type === 'start' ? [] : this.ensureStarted();
    switch (event.type) {
      case 'start':
        return this.start(event.id, event.created, event.model);
      case 'block_start':
        frames.push(...this.startItem(event.index, event.block));
        break;
      case 'block_delta':
        frames.push(...this.delta(event.index, event.delta));
        break;
      case 'block_stop':
        frames.push(...this.stopItem(event.index));
        break;
      case 'finish':
        this.finishReason = event.finishReason;
        break;
      case 'usage':
        this.usage = event.usage;
        break;
    }
    return frames;
  }

  end(): SseFrame[] {
    if (this.terminated) return [];
    const frames = this.ensureStarted();
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) frames.push(...this.stopItem(index));
    this.terminated = true;
    const finish = describeFinish(this.finishReason);
    const response = this.render({ ...finish, usage: this.usage ?? { inputTokens: 0, outputTokens: 0 } });
    const type = finish.status === 'completed' ? 'response.completed' : finish.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    frames.push(this.frame(type, { response }));
    return frames;
  }

  fail(error: CodecError): SseFrame[] {
    if (this.terminated) return [];
    // The SDK's stream accumulator needs response.created before anything else.
    const frames = this.ensureStarted();
    this.terminated = true;
    for (const item of this.open.values()) this.output[item.outputIndex] = this.renderPartial(item);
    // OpenAI's flat error event. (Open Responses' `ErrorStreamingEvent` nests these under
    // `error`, but the official openai SDK raises any event carrying `error` as an exception
    // before the client sees response.failed, so the shape OpenAI's API sends is kept.)
    frames.push(this.frame('error', { code: error.code ?? error.type, message: error.message, param: null }));
    const code = error.status === 429 ? 'rate_limit_exceeded' : 'server_error';
    const response = this.render({ status: 'failed', error: { code, message: error.message }, ...(this.usage ? { usage: this.usage } : {}) });
    frames.push(this.frame('response.failed', { response }));
    return frames;
  }

  private start(id: string, created: number, model: string): SseFrame[] {
    if (this.started) return [];
    this.started = true;
    this.id = toResponseId(id);
    this.createdAt = created;
    if (this.model.length === 0) this.model = model;
    const response = this.render({ status: 'in_progress' });
    return [this.frame('response.created', { response }), this.frame('response.in_progress', { response })];
  }

  private ensureStarted(): SseFrame[] {
    return this.started ? [] : this.start(`resp_${makeRandomSuffix()}`, Math.floor(Date.now() / 1000), this.model);
  }

  private render(state: Omit<ResponseSnapshot, 'id' | 'createdAt' | 'output'>): JsonObject {
    return renderResponseObject({ id: this.id, createdAt: this.createdAt, output: [...this.output], ...state }, this.request, this.model);
  }

  private frame(type: string, payload: JsonObject): SseFrame {
    return { event: type, data: JSON.stringify({ type, sequence_number: this.sequence++, ...payload }) };
  }

  private startItem(index: number, block: BlockStart): SseFrame[] {
    const outputIndex = this.output.length;
    const prefix = block.type === 'text' ? 'msg' : block.type === 'tool_call' ? 'fc' : 'rs';
    let itemId = makeItemId(prefix, this.id, outputIndex);
    let item: JsonObject;
    if (block.type === 'text') item = { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    else if (block.type === 'tool_call') item = { id: itemId, type: 'function_call', status: 'in_progress', call_id: block.id, name: block.name, arguments: '' };
    else if (block.type === 'thinking') item = { id: itemId, type: 'reasoning', summary: [] };
    else {
      const { id, encrypted } = unpackReasoningData(block.data);
      itemId = id ?? makeSyntheticReasoningId(encrypted);
      item = { id: itemId, type: 'reasoning', summary: [], encrypted_content: encrypted };
    }
    this.output.push(item);
    this.open.set(index, { block, outputIndex, itemId, text: '', summaryStarted: false });
    const frames = [this.frame('response.output_item.added', { output_index: outputIndex, item })];
    if (block.type === 'text') {
      frames.push(this.frame('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part: makeOutputText('') }));
    }
    return frames;
  }

  private delta(index: number, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): SseFrame[] {
    const item = this.open.get(index);
    if (item === undefined) return [];
    const where = { item_id: item.itemId, output_index: item.outputIndex };
    if (delta.type === 'text' && item.block.type === 'text') {
      item.text += delta.text;
      return [this.frame('response.output_text.delta', { ...where, content_index: 0, delta: delta.text, logprobs: [] })];
    }
    if (delta.type === 'arguments' && item.block.type === 'tool_call') {
      item.text += delta.partialJson;
      return [this.frame('response.function_call_arguments.delta', { ...where, delta: delta.partialJson })];
    }
    if (delta.type === 'thinking' && item.block.type === 'thinking' && delta.text.length > 0) {
      const frames: SseFrame[] = [];
      if (!item.summaryStarted) {
        item.summaryStarted = true;
        frames.push(this.frame('response.reasoning_summary_part.added', { ...where, summary_index: 0, part: { type: 'summary_text', text: '' } }));
      }
      item.text += delta.text;
      frames.push(this.frame('response.reasoning_summary_text.delta', { ...where, summary_index: 0, delta: delta.text }));
      return frames;
    }
    if (delta.type === 'signature' && item.block.type === 'thinking') item.signature = (item.signature ?? '') + delta.signature;
    return [];
  }

  /** `encrypted_content` for a signed thinking block (reasoning-data.ts), else nothing. */
  private sealed(item: OpenItem): JsonObject {
    if (item.signature === undefined) return {};
    return { encrypted_content: sealThinking([{ type: 'thinking', text: item.text, signature: item.signature }]) };
  }

  /** An item cut off by a failure: what was streamed so far, status `incomplete`. */
  private renderPartial(item: OpenItem): JsonObject {
    const previous = this.output[item.outputIndex] as JsonObject;
    if (item.block.type === 'text') return { ...previous, status: 'incomplete', content: [makeOutputText(item.text)] };
    if (item.block.type === 'tool_call') return { ...previous, status: 'incomplete', arguments: item.text };
    if (item.block.type === 'thinking' && item.summaryStarted) return { ...previous, summary: [{ type: 'summary_text', text: item.text }] };
    return previous;
  }

  private stopItem(index: number): SseFrame[] {
    const item = this.open.get(index);
    if (item === undefined) return [];
    this.open.delete(index);
    const where = { item_id: item.itemId, output_index: item.outputIndex };
    const previous = this.output[item.outputIndex] as JsonObject;
    const frames: SseFrame[] = [];
    let done: JsonObject;
    if (item.block.type === 'text') {
      const part = makeOutputText(item.text);
      frames.push(this.frame('response.output_text.done', { ...where, content_index: 0, text: item.text, logprobs: [] }));
      frames.push(this.frame('response.content_part.done', { ...where, content_index: 0, part }));
      done = { ...previous, status: 'completed', content: [part] };
    } else if (item.block.type === 'tool_call') {
      const args = item.text.length > 0 ? item.text : '{}';
      frames.push(this.frame('response.function_call_arguments.done', { ...where, name: item.block.name, arguments: args }));
      done = { ...previous, status: 'completed', arguments: args };
    } else if (item.block.type === 'thinking' && item.summaryStarted) {
      const part = { type: 'summary_text', text: item.text };
      frames.push(this.frame('response.reasoning_summary_text.done', { ...where, summary_index: 0, text: item.text }));
      frames.push(this.frame('response.reasoning_summary_part.done', { ...where, summary_index: 0, part }));
      done = { ...previous, summary: [part], ...this.sealed(item) };
    } else if (item.block.type === 'thinking') done = { ...previous, ...this.sealed(item) };
    else done = previous;
    this.output[item.outputIndex] = done;
    frames.push(this.frame('response.output_item.done', { output_index: item.outputIndex, item: done }));
    return frames;
  }
}
