/**
 * Internal Conversation -> OpenAI Chat Completions request (the openai-chat dialect).
 * Reference: https://platform.openai.com/docs/api-reference/chat/create
 *
 * Provider options read (gateway.yaml `providers.<name>.options`):
 * - `max_tokens_field`: `max_completion_tokens` (default, OpenAI's current name) or `max_tokens`
 *   (older OpenAI-compatible servers). Without the option, `max_tokens` is used only when the
 *   catalog lists `max_tokens` and not `max_completion_tokens`.
 * - `system_role`: `system` (default) or `developer`.
 * - `reasoning_content`: true to send assistant thinking back as `reasoning_content`
 *   (DeepSeek-style servers); OpenAI itself has no such field, so it is off by default.
 */
import type { DialectRequest, DialectTarget } from '../codec.js';
import { errors } from '../../errors/gateway-error.js';
import type { Conversation, FilePart, ImagePart, Message, Part, ReasoningEffort, TextPart, ThinkingPart, ToolResultPart } from '../internal.js';
import { formatDataUrl } from '../shared/data-url.js';
import { allowsParameter, listsParameter } from '../shared/parameters.js';
import type { ChatContentPart, ChatRequestMessage, ChatTool, ChatToolChoice } from './wire-types.js';

/** OpenAI accepts at most 4 stop sequences (CreateChatCompletionRequest.stop maxItems). */
const MAX_STOP_SEQUENCES = 4;

/** Builds the upstream request; sampling parameters the model does not list are left out. */
export function encodeChatRequest(conversation: Conversation, target: DialectTarget): DialectRequest {
  const body: Record<string, unknown> = {
    model: target.upstreamModel,
    messages: encodeMessages(conversation, target),
  };
  if (conversation.tools && conversation.tools.length > 0) {
    body.tools = conversation.tools.map((tool): ChatTool => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.parameters,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
    if (conversation.toolChoice) body.tool_choice = encodeToolChoice(conversation.toolChoice);
    if (conversation.parallelToolCalls !== undefined && allowsParameter(target, 'parallel_tool_calls')) {
      body.parallel_tool_calls = conversation.parallelToolCalls;
    }
  }
  if (conversation.maxOutputTokens !== undefined) body[maxTokensField(target)] = conversation.maxOutputTokens;
  if (conversation.temperature !== undefined && allowsParameter(target, 'temperature')) body.temperature = conversation.temperature;
  if (conversation.topP !== undefined && allowsParameter(target, 'top_p')) body.top_p = conversation.topP;
  // Not an OpenAI parameter: only for compatible servers whose catalog entry lists it.
  if (conversation.topK !== undefined && listsParameter(target, 'top_k')) body.top_k = conversation.topK;
  if (conversation.stop && conversation.stop.length > 0 && allowsParameter(target, 'stop')) {
    body.stop = conversation.stop.slice(0, MAX_STOP_SEQUENCES);
  }
  const effort = encodeEffort(conversation);
  if (effort && allowsParameter(target, 'reasoning_effort')) body.reasoning_effort = effort;
  const format = conversation.responseFormat;
  if (format && allowsParameter(target, 'response_format')) {
    body.response_format = format.type === 'json_schema'
      ? { type: 'json_schema', json_schema: { name: format.name ?? 'response', schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) } }
      : { type: format.type };
  }
  if (conversation.user !== undefined) body.user = conversation.user;
  if (conversation.stream) {
    body.stream = true;
    // Always ask for the usage chunk: the gateway meters every stream, whatever the client asked.
    body.stream_options = { include_usage: true };
  }
  return { path: '/chat/completions', body };
}

function maxTokensField(target: DialectTarget): 'max_completion_tokens' | 'max_tokens' {
  const option = target.options.max_tokens_field;
  if (option === 'max_tokens' || option === 'max_completion_tokens') return option;
  const set = target.supportedParameters;
  return set.has('max_tokens') && !set.has('max_completion_tokens') ? 'max_tokens' : 'max_completion_tokens';
}

/** Effort for `reasoning_effort`; a bare token budget (Anthropic clients) is bucketed. */
function encodeEffort(conversation: Conversation): ReasoningEffort | undefined {
  const reasoning = conversation.reasoning;
  if (!reasoning) return undefined;
  if (reasoning.effort) return reasoning.effort;
  if (reasoning.budgetTokens === undefined) return undefined;
  if (reasoning.budgetTokens <= 2048) return 'low';
  return reasoning.budgetTokens <= 8192 ? 'medium' : 'high';
}

function encodeToolChoice(choice: NonNullable<Conversation['toolChoice']>): ChatToolChoice {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

function encodeMessages(conversation: Conversation, target: DialectTarget): ChatRequestMessage[] {
  const systemRole = target.options.system_role === 'developer' ? 'developer' : 'system';
  const out: ChatRequestMessage[] = conversation.system.map((text) => ({ role: systemRole, content: text }));
  const sendReasoning = target.options.reasoning_content === true;
  for (const message of conversation.messages) {
    if (message.role === 'user') out.push({ role: 'user', content: encodeUserParts(message.parts) });
    else if (message.role === 'assistant') out.push(encodeAssistant(message, sendReasoning));
    else out.push(...encodeToolTurn(message));
  }
  return out;
}

function encodeUserParts(parts: Part[]): string | ChatContentPart[] {
  const content = parts.flatMap((part): ChatContentPart[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image') return [encodeImage(part)];
    if (part.type === 'file') return [encodeFile(part)];
    return [];
  });
  if (content.length === 1 && content[0]!.type === 'text') return content[0]!.text;
  return content;
}

/** A file part -> chat `file` part: inline data (as a data URL) or an uploaded file's id; chat has no file URLs. */
function encodeFile(part: FilePart): ChatContentPart {
  const source = part.source;
  if (source.kind === 'url') {
    throw errors.invalidRequest('File URLs cannot be sent to this provider; send the file as base64 data (file_data) or an uploaded file_id.', 'unsupported_content');
  }
  if (source.kind === 'file') return { type: 'file', file: { file_id: source.fileId, ...(part.filename !== undefined ? { filename: part.filename } : {}) } };
  return { type: 'file', file: { filename: part.filename ?? 'file', file_data: formatDataUrl(source.mediaType, source.data) } };
}

function encodeImage(part: ImagePart): ChatContentPart {
  const source = part.source;
  if (source.kind === 'file') {
    throw errors.invalidRequest('Image file references cannot be sent to this provider; send the image as a URL or base64 data.', 'unsupported_content');
  }
  const url = source.kind === 'url' ? source.url : formatDataUrl(source.mediaType, source.data);
  return { type: 'image_url', image_url: { url, ...(part.detail ? { detail: part.detail } : {}) } };
}

function encodeAssistant(message: Message, sendReasoning: boolean): ChatRequestMessage {
  const text = message.parts.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('');
  const calls = message.parts.flatMap((p) => (p.type === 'tool_call'
    ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: p.arguments || '{}' } }]
    : []));
  const thinking = message.parts.filter((p): p is ThinkingPart => p.type === 'thinking').map((p) => p.text).join('');
  return {
    role: 'assistant',
    // A message that carries tool calls usually has null content (OpenAI's own responses do).
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(sendReasoning && thinking ? { reasoning_content: thinking } : {}),
  };
}

/**
 * One `tool` message per result. Chat tool messages hold text only, so images in results follow
 * in one user message after the tool messages (they must directly follow the assistant turn).
 */
function encodeToolTurn(message: Message): ChatRequestMessage[] {
  const results = message.parts.filter((p): p is ToolResultPart => p.type === 'tool_result');
  const images: ChatContentPart[] = [];
  const out: ChatRequestMessage[] = results.map((result) => {
    let content: string;
    if (typeof result.content === 'string') content = result.content;
    else {
      content = result.content.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('\n');
      for (const part of result.content) if (part.type === 'image') images.push(encodeImage(part));
    }
    return { role: 'tool', tool_call_id: result.toolCallId, content };
  });
  if (images.length > 0) out.push({ role: 'user', content: images });
  return out;
}
