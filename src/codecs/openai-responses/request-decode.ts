import { errors } from '../../errors/gateway-error.js';
import type { Conversation, ReasoningEffort } from '../internal.js';
import { decodeChatMessages } from './chat-messages.js';
import { decodeResponsesInput } from './input-decode.js';
import { readBoolean, readNumber, asObject, readString, isRecord } from '../shared/json.js';
import { decodeTextFormat, decodeToolChoice, decodeTools } from './tools.js';

const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * Client body of POST /v1/responses (SPEC 4.4, already schema-validated) -> internal form.
 * `messages` (SPEC 2.3 chat messages) is accepted next to, or instead of, `input`; when both are
 * present the messages come first. `instructions` is the first system text.
 */
export function decodeResponsesRequest(body: Record<string, unknown>): Conversation {
  const system: string[] = [];
  const instructions = readString(body.instructions);
  if (instructions !== undefined && instructions.length > 0) system.push(instructions);
  const conversation: Conversation = { model: readString(body.model) ?? '', system, messages: [], stream: body.stream === true };
  if (Array.isArray(body.messages)) {
    const decoded = decodeChatMessages(body.messages);
    system.push(...decoded.system);
    conversation.messages.push(...decoded.messages);
  }
  if (body.input !== undefined && body.input !== null) {
    const decoded = decodeResponsesInput(body.input);
    for (const [i, control] of Object.entries(decoded.systemCache ?? {})) (conversation.systemCache ??= {})[system.length + Number(i)] = control;
    system.push(...decoded.system);
    conversation.messages.push(...decoded.messages);
  }
  if (conversation.messages.length === 0) throw errors.invalidRequest('The request has no user input: send `input` or `messages`.', 'empty_input');
  decodeSettings(body, conversation);
  return conversation;
}

function decodeSettings(body: Record<string, unknown>, conversation: Conversation): void {
  const tools = decodeTools(body.tools);
  if (tools !== undefined && tools.length > 0) conversation.tools = tools;
  const toolChoice = decodeToolChoice(body.tool_choice);
  if (toolChoice !== undefined) conversation.toolChoice = toolChoice;
  const parallel = readBoolean(body.parallel_tool_calls);
  if (parallel !== undefined) conversation.parallelToolCalls = parallel;
  const maxOutput = readNumber(body.max_output_tokens);
  if (maxOutput !== undefined) conversation.maxOutputTokens = maxOutput;
  const temperature = readNumber(body.temperature);
  if (temperature !== undefined) conversation.temperature = temperature;
  const topP = readNumber(body.top_p);
  if (topP !== undefined) conversation.topP = topP;
  const format = decodeTextFormat(body.text);
  if (format !== undefined) conversation.responseFormat = format;
  const reasoning = decodeReasoning(body.reasoning);
  if (reasoning !== undefined) conversation.reasoning = reasoning;
  const user = readString(body.user) ?? readString(body.safety_identifier);
  if (user !== undefined) conversation.user = user;
  if (isRecord(body.metadata)) conversation.metadata = body.metadata;
  const cacheKey = readString(body.prompt_cache_key);
  if (cacheKey !== undefined) conversation.promptCacheKey = cacheKey;
}

function decodeReasoning(raw: unknown): Conversation['reasoning'] {
  if (!isRecord(raw)) return undefined;
  const out: NonNullable<Conversation['reasoning']> = {};
  const effort = EFFORTS.find((e) => e === raw.effort);
  if (effort !== undefined) out.effort = effort;
  const summary = raw.summary;
  if (summary === 'auto' || summary === 'concise' || summary === 'detailed') out.summary = summary;
  // Not an OpenAI field, but SPEC 4.4 allows extra properties and budgets map well to Anthropic/Gemini.
  const budget = readNumber(asObject(raw).budget_tokens);
  if (budget !== undefined) out.budgetTokens = budget;
  return Object.keys(out).length > 0 ? out : undefined;
}
