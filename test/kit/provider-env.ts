/**
 * What every set of kit deployments gives the gateway and the tests: the environment that points
 * the catalog's OpenAI, Anthropic and Gemini providers at the fakes, and one handle over all of them.
 */
import type { KitUpstream } from './fake-upstream.js';

/** OPENAI_*, ANTHROPIC_* and GEMINI_* key and base URL variables for the three deployments. */
export function providerEnv(u: { openai: KitUpstream; anthropic: KitUpstream; gemini: KitUpstream }): Record<string, string> {
  return {
    OPENAI_API_KEY: u.openai.apiKey,
    OPENAI_BASE_URL: `${u.openai.url}/v1`,
    ANTHROPIC_API_KEY: u.anthropic.apiKey,
    ANTHROPIC_BASE_URL: u.anthropic.url,
    GEMINI_API_KEY: u.gemini.apiKey,
    GEMINI_BASE_URL: u.gemini.url,
  };
}

/** Violations, reset and close over several deployments at once. */
export interface DeploymentSet {
  violations(): string[];
  reset(): void;
  close(): Promise<void>;
}

/** The set of `all`. */
export function deploymentSet(all: readonly KitUpstream[]): DeploymentSet {
  return {
    violations: () => all.flatMap((u) => u.violations),
    reset: () => { for (const u of all) u.reset(); },
    close: async () => { await Promise.all(all.map((u) => u.close())); },
  };
}
