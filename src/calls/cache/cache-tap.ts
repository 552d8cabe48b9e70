import type { DialectCodec } from '../../codecs/codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../../codecs/internal.js';
import { splitSseBlocks } from '../../upstream/sse-blocks.js';
import { AnswerCollector } from './answer-collector.js';
import type { CacheSaver } from './response-cache.js';

/** A same-format stream as its writer reads it: the texts of whole events, already read and to come. */
export interface TappableFrames {
  readonly dialect: DialectCodec;
  readonly request: Conversation;
  readonly first: readonly string[];
  readonly batches: AsyncIterator<readonly [string]>;
}

/** The answer's cost so far (the call's meter). */
interface CostSource { cost(): number }

/**
 * Where a text call that missed the cache stores its answer: a whole answer at once, or a
 * stream watched as it passes (its events, or a same-format stream's frames decoded on the
 * side) and stored after it ended, only when it was complete.
 */
export interface CacheTap {
  saveAnswer(answer: InternalResponse, costUsd: number): void;
  tapEvents(iterator: AsyncIterator<StreamEvent>, first: IteratorResult<StreamEvent>): AsyncIterator<StreamEvent>;
  tapFrames<T extends TappableFrames>(stream: T): T;
  /** After the stream's writer returned: stores the answer if the stream was complete. */
  saveCollected(): void;
}

/** The tap of a call whose answer should be stored; undefined when there is no saver. */
export function cacheTap(saver: CacheSaver | undefined, origin: { model: string; provider: string }, meter: CostSource): CacheTap | undefined {
  if (!saver) return undefined;
  const collector = new AnswerCollector();
  return {
    saveAnswer(answer, costUsd) {
      saver.saveText(answer, { ...origin, costUsd });
    },
    tapEvents(iterator, first) {
      if (!first.done) collector.push(first.value);
      else collector.end();
      return {
        async next() {
          const step = await iterator.next();
          if (step.done) collector.end();
          else collector.push(step.value);
          return step;
        },
        return: async (value?: unknown) => (iterator.return ? iterator.return(value) : { done: true, value: undefined }),
      };
    },
    tapFrames(stream) {
      const decoder = stream.dialect.createStreamDecoder(stream.request);
      const read = (text: string) => {
        for (const frame of splitSseBlocks(text).frames) for (const ev of decoder.decode(frame)) collector.push(ev);
      };
      for (const text of stream.first) read(text);
      const batches = stream.batches;
      const tapped: AsyncIterator<readonly [string]> = {
        async next() {
          const step = await batches.next();
          if (step.done) {
            for (const ev of decoder.end()) collector.push(ev);
            collector.end();
          } else {
            read(step.value[0]);
          }
          return step;
        },
        return: async (value?: unknown) => (batches.return ? batches.return(value) : { done: true, value: undefined }),
      };
      return { ...stream, batches: tapped };
    },
    saveCollected() {
      const answer = collector.answer();
      if (answer) saver.saveText(answer, { ...origin, costUsd: meter.cost() });
    },
  };
}
