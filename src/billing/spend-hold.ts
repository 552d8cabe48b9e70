/**
 * A call's hold on its API key's token limit and spend budget (implemented by the key policy
 * in src/calls/key-spend.ts): reserve the worst case before the call, settle the real
 * cost after it.
 */
export interface SpendHold {
  /** Whether the key has a budget or a token limit (so the call's worst case must be estimated). */
  readonly needsEstimate: boolean;
  /**
   * Counts the prompt against the key's token limit (429 when over) and reserves `worstUsd` on
   * its budget. When less is left, `fit(remainingUsd)` may offer a smaller worst case (a lowered
   * output limit); else 402 `budget_exhausted`. Resolves to the USD reserved (0 without budget).
   */
  reserve(worstUsd: number, promptTokens: number, fit?: (remainingUsd: number) => number | undefined): Promise<number>;
  /** Replaces the reservation by the real cost and records the spend. Idempotent; never throws. */
  settle(costUsd: number, tokens: number): Promise<void>;
}

/** A hold for calls made without a key policy (nothing reserved, nothing recorded). */
export const noSpendHold: SpendHold = {
  needsEstimate: false,
  reserve: async () => 0,
  settle: async () => undefined,
};
