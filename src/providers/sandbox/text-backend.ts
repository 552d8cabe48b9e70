import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Conversation, InternalResponse, Part, StreamEvent } from '../../codecs/internal.js';
import type { OperationCall, TextBackend } from '../types.js';
import { composeAnswer } from './text-answer.js';
import type { CallSignal } from '../../upstream/request-abort.js';

/** Characters per streamed fragment of tool-call arguments (so clients see partial JSON). */
const ARGUMENT_FRAGMENT_CHARS = 12;

/**
 * The sandbox text backend: `complete` returns the deterministic answer of text-answer.ts and
 * `stream` delivers the very same answer as internal stream events, word by word, yielding to the
 * event loop between events so delivery is incremental and an abort (`call.signal`) stops it.
 */
export const sandboxTextBackend: TextBackend = {
  async complete(request: Conversation, call: OperationCall): Promise<InternalResponse> {
    call.signal.throwIfAborted();
    return composeAnswer(request);
  },
  stream(request: Conversation, call: OperationCall): AsyncIterable<StreamEvent> {
    return streamAnswer(composeAnswer(request), call.signal);
  },
};

/** The events of a complete answer, in stream order, pausing a tick between events. */
export async function* streamAnswer(response: InternalResponse, signal: CallSignal): AsyncGenerator<StreamEvent> {
  for (const event of listStreamEvents(response)) {
    await yieldToLoop();
    if (signal.aborted) return;
    yield event;
  }
}

/** The stream events that together carry a complete answer (start, blocks, finish, usage). */
export function listStreamEvents(response: InternalResponse): StreamEvent[] {
  const events: StreamEvent[] = [
    { type: 'start', id: response.id, model: response.model, created: response.created, usage: { inputTokens: response.usage.inputTokens } },
  ];
  response.content.forEach((part, index) => events.push(...listBlockEvents(part, index)));
  const finish: StreamEvent = { type: 'finish', finishReason: response.finishReason };
  if (response.stopSequence !== undefined) finish.stopSequence = response.stopSequence;
  events.push(finish, { type: 'usage', usage: { ...response.usage } });
  return events;
}

function listBlockEvents(part: Part, index: number): StreamEvent[] {
  switch (part.type) {
    case 'text':
      return [
        { type: 'block_start', index, block: { type: 'text' } },
        ...splitWords(part.text).map((text): StreamEvent => ({ type: 'block_delta', index, delta: { type: 'text', text } })),
        { type: 'block_stop', index },
      ];
    case 'thinking': {
      const events: StreamEvent[] = [
        { type: 'block_start', index, block: { type: 'thinking' } },
        ...splitWords(part.text).map((text): StreamEvent => ({ type: 'block_delta', index, delta: { type: 'thinking', text } })),
      ];
      if (part.signature !== undefined) events.push({ type: 'block_delta', index, delta: { type: 'signature', signature: part.signature } });
      events.push({ type: 'block_stop', index });
      return events;
    }
    case 'tool_call':
      return [
        { type: 'block_start', index, block: { type: 'tool_call', id: part.id, name: part.name } },
        ...splitArguments(part.arguments).map((partialJson): StreamEvent => ({ type: 'block_delta', index, delta: { type: 'arguments', partialJson } })),
        { type: 'block_stop', index },
      ];
    case 'redacted_thinking':
      return [{ type: 'block_start', index, block: { type: 'redacted_thinking', data: part.data } }, { type: 'block_stop', index }];
    default:
      return [];
  }
}

/** Words with the whitespace before them; the pieces concatenate back to the text. */
function splitWords(text: string): string[] {
  const words = text.match(/\s*\S+/g) ?? [];
  const consumed = words.reduce((n, w) => n + w.length, 0);
  if (consumed < text.length) {
    if (words.length === 0) return [text];
    words[words.length - 1] += text.slice(consumed);
  }
  return words;
}

function splitArguments(json: string): string[] {
  // Split by code points so no fragment ends inside a surrogate pair.
  const chars = Array.from(json);
  const fragments: string[] = [];
  for (let i = 0; i < chars.length; i += ARGUMENT_FRAGMENT_CHARS) fragments.push(chars.slice(i, i + ARGUMENT_FRAGMENT_CHARS).join(''));
  return fragments;
}
