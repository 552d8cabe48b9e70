/**
 * Internal Conversation -> Anthropic Messages request (the anthropic-messages dialect).
 * Reference: https://docs.anthropic.com/en/api/messages; mapping rules of PROVIDERS.md section 3.
 *
 * Provider options read (gateway.yaml `providers.<name>.options`):
 * - `anthropic_version` (default `2023-06-01`): sent as the `anthropic-version` header. Under
 *   `2026-10-21` temperature, top_p and top_k are removed from the API (each a 400), so they are
 *   never sent.
 * - `default_max_tokens` (default 4096): `max_tokens` is required; used when the client set none.
 * - `beta`: names sent in the `anthropic-beta` header.
 * - `thinking_mode`: `adaptive` (default) or `budget`, see thinking-config.ts.
 */
import type { DialectRequest, DialectTarget } from '../codec.js';
import type { Conversation, Message } from '../internal.js';
import { allowsParameter, clamp } from '../shared/parameters.js';
import { encodeAssistantBlock, encodeDocumentBlock, encodeImageBlock, encodeTextBlock, encodeToolResultBlock } from './content-blocks.js';
import { encodeReasoning } from './thinking-config.js';
import type { AnthropicMessageParam, AnthropicOutputConfig, AnthropicTool, AnthropicToolChoice, ContentBlock, TextBlock } from './wire-types.js';
import { writeCacheControl } from '../shared/cache-control.js';
import { roleTurns } from '../shared/role-turns.js';

/** The API version sent when the provider sets none. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
/** The version that removed temperature, top_p and top_k. */
const VERSION_WITHOUT_SAMPLING = '2026-10-21';
const DEFAULT_MAX_TOKENS = 4096;

/** The `anthropic-version` (and `anthropic-beta`) headers for the provider's options. */
export function versionHeaders(options: Readonly<Record<string, unknown>>): Record<string, string> {
  const version = typeof options.anthropic_version === 'string' ? options.anthropic_version : DEFAULT_ANTHROPIC_VERSION;
  const beta = Array.isArray(options.beta) ? options.beta.filter((b): b is string => typeof b === 'string') : [];
  return { 'anthropic-version': version, ...(beta.length > 0 ? { 'anthropic-beta': beta.join(',') } : {}) };
}

/** Builds the upstream request; sampling parameters the model does not list are left out. */
export function encodeMessagesRequest(conversation: Conversation, target: DialectTarget): DialectRequest {
  const headers = versionHeaders(target.options);
  const configured = target.options.default_max_tokens;
  const maxTokens = conversation.maxOutputTokens ?? (typeof configured === 'number' && configured >= 1 ? configured : DEFAULT_MAX_TOKENS);
  const body: Record<string, unknown> = { model: target.upstreamModel, max_tokens: maxTokens, messages: encodeMessages(conversation.messages) };

  const system = encodeSystem(conversation);
  if (system !== undefined) body.system = system;

  if (conversation.tools && conversation.tools.length > 0) {
    body.tools = conversation.tools.map((tool): AnthropicTool => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: { type: 'object', ...tool.parameters },
      ...(tool.strict ? { strict: true } : {}),
      ...writeCacheControl(tool.cacheControl),
    }));
    const choice = encodeToolChoice(conversation);
    if (choice) body.tool_choice = choice;
  }
  if (conversation.stop && conversation.stop.length > 0 && allowsParameter(target, 'stop_sequences')) body.stop_sequences = conversation.stop;

  const messages = body.messages as AnthropicMessageParam[];
  const reasoning = allowsParameter(target, 'thinking')
    ? encodeReasoning(conversation.reasoning, target.options.thinking_mode, maxTokens)
    : {};
  // Thinking the client did not hand back cannot be invented: rather than a certain 400, this
  // one request runs without thinking (the client's next fresh turn thinks again).
  if (thinkingOn(reasoning.thinking) && !carriesThinkingForToolUse(messages)) delete reasoning.thinking;
  if (reasoning.thinking) body.thinking = reasoning.thinking;
  const outputConfig: AnthropicOutputConfig = {};
  if (reasoning.effort) outputConfig.effort = reasoning.effort;
  const format = conversation.responseFormat;
  // json_object has no Anthropic equivalent short of a schema; only json_schema is mapped.
  if (format?.type === 'json_schema' && allowsParameter(target, 'output_config')) {
    outputConfig.format = { type: 'json_schema', schema: format.schema };
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;

  Object.assign(body, encodeSampling(conversation, target, headers['anthropic-version'] !== VERSION_WITHOUT_SAMPLING, thinkingOn(reasoning.thinking)));
  if (conversation.user !== undefined) body.metadata = { user_id: conversation.user };
  if (conversation.stream) body.stream = true;
  return { path: '/v1/messages', body, headers };
}

/**
 * `system`: one string, or text blocks when there are several entries or a cache breakpoint
 * (only a block can carry `cache_control`). Empty entries are left out.
 */
function encodeSystem(conversation: Conversation): string | TextBlock[] | undefined {
  const blocks: TextBlock[] = [];
  conversation.system.forEach((text, i) => {
    if (text !== '') blocks.push({ type: 'text', text, ...writeCacheControl(conversation.systemCache?.[i]) });
  });
  if (blocks.length === 0) return undefined;
  if (blocks.length === 1 && !blocks[0]!.cache_control) return blocks[0]!.text;
  return blocks;
}

function thinkingOn(thinking: Record<string, unknown> | undefined): boolean {
  return thinking !== undefined && thinking.type !== 'disabled';
}

/**
 * Anthropic's rule with thinking on: the last assistant turn, when it holds tool_use blocks (the
 * tool loop in progress), must start with a thinking or redacted_thinking block, else the API
 * answers 400 (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
 * True when the conversation satisfies it (or has no such turn).
 */
export function carriesThinkingForToolUse(messages: readonly AnthropicMessageParam[]): boolean {
  const last = messages.findLast((m) => m.role === 'assistant');
  if (!last || !last.content.some((b) => b.type === 'tool_use')) return true;
  const first = last.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
}

/**
 * temperature (chat's 0-2 clamped to Anthropic's 0-1), top_p, top_k. With thinking on, Anthropic
 * rejects any temperature or top_k change and accepts top_p only in [0.95, 1]
 * (extended-thinking "feature compatibility").
 */
function encodeSampling(conversation: Conversation, target: DialectTarget, versionAllows: boolean, thinking: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  if (!versionAllows) return out;
  if (conversation.temperature !== undefined && !thinking && allowsParameter(target, 'temperature')) {
    out.temperature = clamp(conversation.temperature, 0, 1);
  }
  if (conversation.topP !== undefined && allowsParameter(target, 'top_p')) {
    out.top_p = clamp(conversation.topP, thinking ? 0.95 : 0, 1);
  }
  if (conversation.topK !== undefined && !thinking && allowsParameter(target, 'top_k')) out.top_k = conversation.topK;
  return out;
}

/** tool_choice, carrying `parallel_tool_calls: false` as `disable_parallel_tool_use: true`. */
function encodeToolChoice(conversation: Conversation): AnthropicToolChoice | undefined {
  const choice = conversation.toolChoice;
  // A constraint on the answer's shape rather than a tuning knob: always honoured.
  const disable = conversation.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (!choice) return 'disable_parallel_tool_use' in disable ? { type: 'auto', ...disable } : undefined;
  switch (choice.type) {
    case 'none': return { type: 'none' };
    case 'auto': return { type: 'auto', ...disable };
    case 'required': return { type: 'any', ...disable };
    case 'tool': return { type: 'tool', name: choice.name, ...disable };
  }
}

/**
 * Internal turns -> Anthropic turns (shared/role-turns.ts): tool turns become user turns of
 * tool_result blocks, turns of the same role merge (Anthropic would merge them anyway), results
 * first in their turn.
 */
function encodeMessages(messages: Message[]): AnthropicMessageParam[] {
  return roleTurns<ContentBlock>(messages, (part, role) => {
    if (role === 'assistant') return encodeAssistantBlock(part, false);
    if (part.type === 'text') return encodeTextBlock(part);
    if (part.type === 'image') return [encodeImageBlock(part)];
    if (part.type === 'file') return [encodeDocumentBlock(part)];
    if (part.type === 'tool_result') return [encodeToolResultBlock(part)];
    return [];
  }, (block) => block.type === 'tool_result');
}
