import type { MeteredUsage } from '../billing/call-meter.js';
import type { SseFrame } from '../codecs/codec.js';
import { writeChatUsage } from '../codecs/openai-chat/usage.js';
import type { ChatCompletionChunk } from '../codecs/openai-chat/wire-types.js';

/** The stream's identity as its opening frame named it (what a closing frame must repeat). */
export interface StreamOpening {
  id: string;
  created: number;
}

/**
 * The closing usage frame a same-format stream owes a client that asked for usage when the
 * upstream sent none (SPEC 2.4: usage is always present, estimated and marked when the
 * provider omitted it), in the client's format; undefined for formats whose terminal events
 * already carry usage (Messages `message_delta`, Responses `response.completed`).
 * Chat: the `choices: []` chunk OpenAI sends last with `stream_options.include_usage`.
 */
export function buildEstimatedUsageFrame(format: string, model: string, opening: StreamOpening, metered: MeteredUsage, costUsd: number): SseFrame | undefined {
  if (format !== 'openai-chat') return undefined;
  const chunk: ChatCompletionChunk = {
    id: opening.id,
    object: 'chat.completion.chunk',
    created: opening.created,
    model,
    choices: [],
    usage: writeChatUsage(metered.usage),
  };
  // `estimated` and `cost` extend OpenAI's usage object (SPEC 2.4), as on every passthrough answer.
  const data = JSON.stringify({ ...chunk, usage: { ...chunk.usage, ...(metered.estimated ? { estimated: true } : {}), cost: costUsd } });
  return { data };
}
