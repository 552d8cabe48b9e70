import type { InternalResponse, StreamEvent } from '../../codecs/internal.js';
import { StreamAnswer } from '../../codecs/shared/stream-answer.js';

/**
 * Builds the whole answer of a stream from its internal events (codecs/shared/stream-answer.ts),
 * so a streamed answer can be stored like a plain one. It is complete only when the stream
 * ended normally (the caller says so) after a finish and without an error event: a cut, failed
 * or abandoned stream is never an answer to store.
 */
export class AnswerCollector {
  private readonly collected = new StreamAnswer();
  private failed = false;
  private ended = false;

  /** Reads one event. */
  push(event: StreamEvent): void {
    if (event.type === 'error') this.failed = true;
    else this.collected.read(event);
  }

  /** The stream ended normally (its iterator finished, no failure thrown). */
  end(): void {
    this.ended = true;
  }

  /** The whole answer, when the stream was complete. */
  answer(): InternalResponse | undefined {
    const { finishReason, usage } = this.collected;
    if (!this.ended || this.failed || finishReason === undefined || usage === undefined) return undefined;
    return this.collected.answer({ finishReason, usage, created: 0 });
  }
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
