import type { StreamEvent, Usage } from '../codecs/internal.js';
import type { Pricing } from './pricing.js';
import { computeTextCost } from './text-cost.js';
import { countBpeTokens } from './token-counter.js';

/** What the limiter needs to price a stream as it flows. */
export interface StreamSpendLimit {
  /** Most the call may cost, USD. */
  budgetUsd: number;
  pricing: Pricing;
  /** Worst-case prompt tokens, used until the upstream reports its own count in `start`. */
  inputTokens: number;
}

/**
 * A transformer over internal stream events that ends the stream once its budget is reached.
 * Spend = prompt (as counted) + every delivered delta's tokens (o200k_base; thinking deltas as
 * reasoning), priced like the final bill. When the next delta would take spend past the
 * budget, the stream ends the normal way instead: open blocks stop, `finish` is `length`, and a
 * `usage` event reports what was generated (the withheld chunk included: the upstream produced
 * it), so no request costs more than its budget plus one chunk. Returning stops the upstream
 * (its iterator is closed, which aborts the HTTP call).
 */
export async function* limitStreamSpend(events: AsyncIterable<StreamEvent>, limit: StreamSpendLimit): AsyncGenerator<StreamEvent> {
  const usage: Usage = { inputTokens: limit.inputTokens, outputTokens: 0 };
  const open = new Set<number>();
  const kinds = new Map<number, string>();
  for await (const event of events) {
    switch (event.type) {
      case 'start':
        if (event.usage?.inputTokens !== undefined) usage.inputTokens = event.usage.inputTokens;
        if (event.usage?.cachedInputTokens !== undefined) usage.cachedInputTokens = event.usage.cachedInputTokens;
        if (event.usage?.cacheWriteInputTokens !== undefined) usage.cacheWriteInputTokens = event.usage.cacheWriteInputTokens;
        break;
      case 'block_start': {
        open.add(event.index);
        kinds.set(event.index, event.block.type);
        const tokens = event.block.type === 'tool_call' ? (await countBpeTokens(event.block.name)) + 3 : 0;
        if (tokens > 0 && exceeds(usage, tokens, false, limit)) return yield* cut(usage, tokens, false, open);
        usage.outputTokens += tokens;
        break;
      }
      case 'block_delta': {
        const d = event.delta;
        const text = d.type === 'text' || d.type === 'thinking' ? d.text : d.type === 'arguments' ? d.partialJson : '';
        const tokens = text.length > 0 ? await countBpeTokens(text) : 0;
        const reasoning = d.type === 'thinking' || kinds.get(event.index) === 'thinking';
        if (tokens > 0 && exceeds(usage, tokens, reasoning, limit)) return yield* cut(usage, tokens, reasoning, open);
        add(usage, tokens, reasoning);
        break;
      }
      case 'block_stop':
        open.delete(event.index);
        break;
      default:
        break;
    }
    yield event;
  }
}

function exceeds(usage: Usage, tokens: number, reasoning: boolean, limit: StreamSpendLimit): boolean {
  const next: Usage = { ...usage };
  add(next, tokens, reasoning);
  return computeTextCost(next, limit.pricing) > limit.budgetUsd;
}

function add(usage: Usage, tokens: number, reasoning: boolean): void {
  usage.outputTokens += tokens;
  if (reasoning) usage.reasoningTokens = (usage.reasoningTokens ?? 0) + tokens;
}

function* cut(usage: Usage, withheld: number, reasoning: boolean, open: Set<number>): Generator<StreamEvent> {
  for (const index of open) yield { type: 'block_stop', index };
  open.clear();
  yield { type: 'finish', finishReason: 'length' };
  const final: Usage = { ...usage };
  add(final, withheld, reasoning);
  yield { type: 'usage', usage: final };
}
