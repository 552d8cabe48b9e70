import type { FinishReason, InternalResponse, Part, StreamEvent, Usage } from '../internal.js';

/**
 * The whole answer of an internal stream, built as its events pass: the start's id, model and
 * time, each block from its start and deltas, the finish and the usage. Errors are the
 * reader's to handle. Used where a stream must become one answer: the task surfaces' one final
 * frame (research/collecting-stream-encoder.ts) and the response cache's stored answer.
 */
export class StreamAnswer {
  id = '';
  model = '';
  created = 0;
  finishReason: FinishReason | undefined;
  stopSequence: string | undefined;
  usage: Usage | undefined;
  private readonly blocks = new Map<number, Part>();

  /** Reads one event (an error event changes nothing here). */
  read(event: StreamEvent): void {
    switch (event.type) {
      case 'start':
        this.id = event.id;
        this.model = event.model;
        this.created = event.created;
        break;
      case 'block_start':
        this.blocks.set(event.index, startPart(event.block));
        break;
      case 'block_delta':
        applyDelta(this.blocks.get(event.index), event.delta);
        break;
      case 'finish':
        this.finishReason = event.finishReason;
        this.stopSequence = event.stopSequence;
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      default:
        break;
    }
  }

  /** The answer so far, its blocks in index order; `defaults` fill what the stream did not say. */
  answer(defaults: { finishReason: FinishReason; usage: Usage; created: number }): InternalResponse {
    const content = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, part]) => part);
    const out: InternalResponse = {
      id: this.id, model: this.model, created: this.created || defaults.created, content,
      finishReason: this.finishReason ?? defaults.finishReason, usage: this.usage ?? defaults.usage,
    };
    if (this.stopSequence !== undefined) out.stopSequence = this.stopSequence;
    return out;
  }
}

function startPart(block: Extract<StreamEvent, { type: 'block_start' }>['block']): Part {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'thinking') return { type: 'thinking', text: '' };
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
  return { type: 'tool_call', id: block.id, name: block.name, arguments: '', ...(block.signature !== undefined ? { signature: block.signature } : {}) };
}

function applyDelta(part: Part | undefined, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): void {
  if (part === undefined) return;
  if (delta.type === 'text' && part.type === 'text') part.text += delta.text;
  else if (delta.type === 'thinking' && part.type === 'thinking') part.text += delta.text;
  else if (delta.type === 'arguments' && part.type === 'tool_call') part.arguments += delta.partialJson;
  else if (delta.type === 'signature' && (part.type === 'thinking' || part.type === 'tool_call')) part.signature = (part.signature ?? '') + delta.signature;
}
