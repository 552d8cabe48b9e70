import type { FinishReason, InternalResponse, Part, StreamEvent, Usage } from '../../codecs/internal.js';

/**
 * Builds the whole answer of a stream from its internal events, so a streamed answer can be
 * stored like a plain one. It is complete only when the stream ended normally (the caller says
 * so) after a finish and without an error event: a cut, failed or abandoned stream is never an
 * answer to store.
 */
export class AnswerCollector {
  private id = '';
  private model = '';
  private created = 0;
  private readonly blocks = new Map<number, Part>();
  private finishReason: FinishReason | undefined;
  private stopSequence: string | undefined;
  private usage: Usage | undefined;
  private failed = false;
  private ended = false;

  /** Reads one event. */
  push(event: StreamEvent): void {
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
      case 'error':
        this.failed = true;
        break;
      default:
        break;
    }
  }

  /** The stream ended normally (its iterator finished, no failure thrown). */
  end(): void {
    this.ended = true;
  }

  /** The whole answer, when the stream was complete. */
  answer(): InternalResponse | undefined {
    if (!this.ended || this.failed || this.finishReason === undefined || this.usage === undefined) return undefined;
    const content = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, part]) => part);
    const out: InternalResponse = { id: this.id, model: this.model, created: this.created, content, finishReason: this.finishReason, usage: this.usage };
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

/** The events that replay a stored answer as a stream: start, one block per part, finish, usage. */
export function replayEvents(answer: InternalResponse): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: answer.id, model: answer.model, created: answer.created }];
  answer.content.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        events.push({ type: 'block_start', index, block: { type: 'text' } }, { type: 'block_delta', index, delta: { type: 'text', text: part.text } });
        break;
      case 'thinking':
        events.push({ type: 'block_start', index, block: { type: 'thinking' } }, { type: 'block_delta', index, delta: { type: 'thinking', text: part.text } });
        if (part.signature) events.push({ type: 'block_delta', index, delta: { type: 'signature', signature: part.signature } });
        break;
      case 'redacted_thinking':
        events.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: part.data } });
        break;
      case 'tool_call':
        events.push(
          { type: 'block_start', index, block: { type: 'tool_call', id: part.id, name: part.name, ...(part.signature !== undefined ? { signature: part.signature } : {}) } },
          { type: 'block_delta', index, delta: { type: 'arguments', partialJson: part.arguments } },
        );
        break;
      default:
        return;
    }
    events.push({ type: 'block_stop', index });
  });
  events.push({ type: 'finish', finishReason: answer.finishReason, ...(answer.stopSequence !== undefined ? { stopSequence: answer.stopSequence } : {}) });
  events.push({ type: 'usage', usage: answer.usage });
  return events;
}
