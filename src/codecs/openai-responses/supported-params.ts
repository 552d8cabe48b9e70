import type { DialectTarget } from '../codec.js';
import { allowsParameter } from '../shared/parameters.js';
import type { Capability } from '../shared/parameter-spellings.js';

/**
 * Internal settings -> the capability (shared/parameter-spellings.ts) whose spellings the catalog's
 * `parameters` list may use. A setting is sent upstream when ANY spelling is listed.
 */
const SETTING_CAPABILITY = {
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  maxOutputTokens: 'max_output_tokens',
  stop: 'stop',
  tools: 'tools',
  toolChoice: 'tool_choice',
  parallelToolCalls: 'parallel_tool_calls',
  reasoning: 'reasoning',
  responseFormat: 'response_format',
  user: 'user',
  metadata: 'metadata',
} as const satisfies Record<string, Capability>;

/** An internal setting whose sending depends on the model's supported parameters. */
export type FilteredSetting = keyof typeof SETTING_CAPABILITY;

/**
 * True when the model accepts the setting under any of its client-facing names. An empty set
 * (catalog lists no parameters) reads as unrestricted, like every other dialect (shared/parameters).
 */
export function supportsSetting(target: DialectTarget, setting: FilteredSetting): boolean {
  return allowsParameter(target, SETTING_CAPABILITY[setting]);
}
