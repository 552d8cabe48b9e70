import type { DialectTarget } from '../codec.js';
import { allowsParameter } from '../shared/parameters.js';

/**
 * The catalog's `parameters` list uses client-facing names (SPEC field names, OpenRouter style).
 * One internal setting may be spelled several ways by clients, so each setting is sent upstream
 * when ANY of its spellings is in `target.supportedParameters`; otherwise it is left out.
 */
export const PARAMETER_ALIASES = {
  temperature: ['temperature'],
  topP: ['top_p'],
  topK: ['top_k'],
  maxOutputTokens: ['max_output_tokens', 'max_tokens', 'max_completion_tokens'],
  stop: ['stop', 'stop_sequences'],
  tools: ['tools'],
  toolChoice: ['tool_choice'],
  parallelToolCalls: ['parallel_tool_calls'],
  reasoning: ['reasoning', 'reasoning_effort'],
  responseFormat: ['response_format', 'structured_outputs', 'text'],
  user: ['user'],
  metadata: ['metadata'],
} as const satisfies Record<string, readonly string[]>;

/** An internal setting whose sending depends on the model's supported parameters. */
export type FilteredSetting = keyof typeof PARAMETER_ALIASES;

/**
 * True when the model accepts the setting under any of its client-facing names. An empty set
 * (catalog lists no parameters) reads as unrestricted, like every other dialect (shared/parameters).
 */
export function supportsSetting(target: DialectTarget, setting: FilteredSetting): boolean {
  return allowsParameter(target, ...PARAMETER_ALIASES[setting]);
}
