import type { FinishReason } from '../internal.js';

/**
 * Finish/stop reason maps between the internal form and the wire formats.
 * OpenAI values: https://platform.openai.com/docs/api-reference/chat/object
 * Anthropic values: https://docs.anthropic.com/en/api/messages (stop_reason) and the mapping
 * table of PROVIDERS.md section 3.
 */

/** OpenAI chat `finish_reason` -> internal. Unknown or null values read as `stop`. */
export function readOpenAiFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'length': return 'length';
    case 'tool_calls':
    case 'function_call': return 'tool_calls';
    case 'content_filter': return 'content_filter';
    default: return 'stop';
  }
}

/** Internal -> OpenAI chat `finish_reason` (chat has no refusal or error reason). */
export function writeOpenAiFinishReason(reason: FinishReason): 'stop' | 'length' | 'tool_calls' | 'content_filter' {
  switch (reason) {
    case 'length': return 'length';
    case 'tool_calls': return 'tool_calls';
    case 'content_filter':
    case 'refusal': return 'content_filter';
    default: return 'stop';
  }
}

/** Anthropic `stop_reason` -> internal. `pause_turn` (server-tool loop paused) reads as `stop`. */
export function readAnthropicStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop_sequence': return 'stop_sequence';
    case 'max_tokens':
    case 'model_context_window_exceeded': return 'length';
    case 'tool_use': return 'tool_calls';
    case 'refusal': return 'refusal';
    default: return 'stop';
  }
}

/** Anthropic stop reasons a gateway emits. */
export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/** Internal -> Anthropic `stop_reason`. */
export function writeAnthropicStopReason(reason: FinishReason): AnthropicStopReason {
  switch (reason) {
    case 'stop_sequence': return 'stop_sequence';
    case 'length': return 'max_tokens';
    case 'tool_calls': return 'tool_use';
    case 'content_filter':
    case 'refusal': return 'refusal';
    default: return 'end_turn';
  }
}
