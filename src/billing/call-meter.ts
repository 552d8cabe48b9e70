import type { Conversation, StreamEvent, Usage } from '../codecs/internal.js';
import type { Pricing } from './pricing.js';
import type { SpendHold } from './spend-hold.js';
import { computeTextCost } from './text-cost.js';
import { ESTIMATE_CHARS_PER_TOKEN, estimateConversationTokens } from './token-counter.js';

/**
 * The cost of one text call, from what it reports. The provider's usage (a complete answer's,
 * or a stream's `usage` event) is authoritative; a stream that ends without one (an upstream
 * failure, a provider that reports none) is billed from what passed through: the prompt's
 * cheap estimate (estimateConversationTokens: no tokenizer on this path; the budget's count
 * when one was made) and the delivered output at the same ESTIMATE_CHARS_PER_TOKEN, reported as estimated.
 */
export interface CallMeter {
  /** Reads a stream event as it passes (usage, delivered output). */
  observe(event: StreamEvent): void;
  /** Counts delivered output read off a frame that was passed through undecoded. */
  addOutputChars(chars: number): void;
  /** Records a complete answer's usage. */
  record(usage: Usage): void;
  /** The cost so far (USD). */
  cost(): number;
  /**
   * The usage billed so far and whether it is the meter's own estimate (no provider usage seen),
   * so a stream that ended without usage can still tell the client what it was billed for.
   */
  usage(): MeteredUsage;
  /** Settles the key's hold with the final cost, once; resolves to that cost. */
  finish(): Promise<number>;
  /** Settles with nothing spent when the call failed before producing anything. */
  abandon(): Promise<void>;
}

/** What a meter bills: the provider's usage, or its estimate (`estimated`). */
export interface MeteredUsage {
  usage: Usage;
  estimated: boolean;
}

/** Told the final usage and cost once, when the meter finishes (`estimated`: no provider usage). */
export type MeterReport = (usage: Usage, costUsd: number, estimated: boolean) => void;

const SETTLED: Promise<void> = Promise.resolve();

/** A meter for a text call of `request` priced by `pricing`, settling on `hold`. */
export function createCallMeter(request: Conversation, pricing: Pricing, hold: SpendHold, estimatedInputTokens?: number, report?: MeterReport): CallMeter {
  let usage: Usage | undefined;
  let outputChars = 0;
  let promptTokens = estimatedInputTokens;
  let done = false;
  const current = (): Usage => {
    if (usage) return usage;
    promptTokens ??= estimateConversationTokens(request);
    return { inputTokens: promptTokens, outputTokens: Math.ceil(outputChars / ESTIMATE_CHARS_PER_TOKEN) };
  };
  return {
    observe(event) {
      if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'block_delta') {
        const d = event.delta;
        outputChars += d.type === 'text' || d.type === 'thinking' ? d.text.length : d.type === 'arguments' ? d.partialJson.length : 0;
      }
    },
    addOutputChars(chars) {
      outputChars += chars;
    },
    record(u) {
      usage = u;
    },
    cost() {
      return computeTextCost(current(), pricing);
    },
    usage() {
      return { usage: current(), estimated: usage === undefined };
    },
    async finish() {
      const u = current();
      const cost = computeTextCost(u, pricing);
      if (!done) {
        done = true;
        report?.(u, cost, usage === undefined);
        await hold.settle(cost, u.inputTokens + u.outputTokens);
      }
      return cost;
    },
    abandon() {
      // Called after every call, finished or not: a finished meter has nothing to settle.
      if (done) return SETTLED;
      done = true;
      return hold.settle(0, 0);
    },
  };
}
