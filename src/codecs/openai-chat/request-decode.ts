/**
 * Chat Completions client body -> internal Conversation (the chat surface's decodeRequest).
 * Reference: https://platform.openai.com/docs/api-reference/chat/create
 */
import { errors } from '../../errors/gateway-error.js';
import type {
  Conversation, FilePart, ImagePart, Message, Part, ReasoningEffort, ResponseFormat, TextPart, ToolChoice, ToolDefinition,
} from '../internal.js';
import { parseDataUrl } from '../shared/data-url.js';
import { decodeOpenAiFile } from '../shared/file-parts.js';
import { isRecord, readNumber, readString } from '../shared/json.js';
import { readThinkingFields } from './reasoning-fields.js';

const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/** Decodes a validated chat completions body. Throws GatewayError 400 on what has no internal form. */
export function decodeChatRequest(body: Record<string, unknown>): Conversation {
  if (!Array.isArray(body.messages)) throw errors.invalidRequest('`messages` must be an array.');
  const n = readNumber(body.n);
  if (n !== undefined && n !== 1) {
    throw errors.invalidRequest('`n` other than 1 is not supported by this gateway; send one request per completion.', 'unsupported_parameter', { param: 'n' });
  }
  if (body.functions !== undefined || body.function_call !== undefined) {
    throw errors.invalidRequest('Legacy `functions`/`function_call` are not supported; use `tools` and `tool_choice`.', 'unsupported_parameter', { param: 'functions' });
  }

  const conversation: Conversation = { model: String(body.model), system: [], messages: [], stream: body.stream === true };
  decodeMessages(body.messages, conversation);

  if (Array.isArray(body.tools)) conversation.tools = body.tools.map(decodeTool);
  if (body.tool_choice !== undefined && body.tool_choice !== null) conversation.toolChoice = decodeToolChoice(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean') conversation.parallelToolCalls = body.parallel_tool_calls;

  const maxTokens = readNumber(body.max_completion_tokens) ?? readNumber(body.max_tokens);
  if (maxTokens !== undefined) conversation.maxOutputTokens = maxTokens;
  const temperature = readNumber(body.temperature);
  if (temperature !== undefined) conversation.temperature = temperature;
  const topP = readNumber(body.top_p);
  if (topP !== undefined) conversation.topP = topP;
  // top_k is not an OpenAI parameter, but several OpenAI-compatible servers accept it.
  const topK = readNumber(body.top_k);
  if (topK !== undefined) conversation.topK = topK;

  if (typeof body.stop === 'string') conversation.stop = [body.stop];
  else if (Array.isArray(body.stop)) conversation.stop = body.stop.filter((s): s is string => typeof s === 'string');

  const effort = readString(body.reasoning_effort);
  if (effort !== undefined) {
    if (!EFFORTS.includes(effort as ReasoningEffort)) throw errors.invalidRequest(`Unknown reasoning_effort '${effort}'.`, 'invalid_parameter', { param: 'reasoning_effort' });
    conversation.reasoning = { effort: effort as ReasoningEffort };
  }
  const format = decodeResponseFormat(body.response_format);
  if (format) conversation.responseFormat = format;

  if (conversation.stream && isRecord(body.stream_options) && body.stream_options.include_usage === true) {
    conversation.includeUsage = true;
  }
  const user = readString(body.safety_identifier) ?? readString(body.user);
  if (user !== undefined) conversation.user = user;
  if (isRecord(body.metadata)) conversation.metadata = body.metadata;
  return conversation;
}

function decodeMessages(messages: unknown[], conversation: Conversation): void {
  // Tool names are looked up from the assistant's calls: chat tool messages carry only the id,
  // while some dialects (Gemini) match results by name.
  const toolNames = new Map<string, string>();
  for (const [i, raw] of messages.entries()) {
    if (!isRecord(raw)) throw errors.invalidRequest(`messages[${i}] must be an object.`);
    switch (raw.role) {
      case 'system':
      case 'developer': {
        const text = readTextContent(raw.content, i);
        if (text !== '') conversation.system.push(text);
        break;
      }
      case 'user':
        pushMessage(conversation.messages, { role: 'user', parts: decodeUserContent(raw.content, i) });
        break;
      case 'assistant': {
        const message = decodeAssistant(raw, i);
        for (const part of message.parts) if (part.type === 'tool_call') toolNames.set(part.id, part.name);
        pushMessage(conversation.messages, message);
        break;
      }
      case 'tool': {
        const toolCallId = readString(raw.tool_call_id);
        if (!toolCallId) throw errors.invalidRequest(`messages[${i}].tool_call_id is required on tool messages.`);
        const name = toolNames.get(toolCallId);
        const result: Part = { type: 'tool_result', toolCallId, ...(name ? { name } : {}), content: decodeToolContent(raw.content, i) };
        // Consecutive tool messages become one internal tool turn.
        const last = conversation.messages.at(-1);
        if (last?.role === 'tool') last.parts.push(result);
        else conversation.messages.push({ role: 'tool', parts: [result] });
        break;
      }
      default:
        throw errors.invalidRequest(`messages[${i}].role '${String(raw.role)}' is not supported.`, 'unsupported_role');
    }
  }
}

/** Appends a message unless it has no parts (e.g. an assistant turn with null content). */
function pushMessage(messages: Message[], message: Message): void {
  if (message.parts.length === 0) return;
  messages.push(message);
}

/** System/developer content: a string, or text parts joined by newlines. */
function readTextContent(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part, j) => {
      if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
      throw errors.invalidRequest(`messages[${i}].content[${j}] must be a text part.`, 'unsupported_content');
    }).join('\n');
  }
  if (content === null || content === undefined) return '';
  throw errors.invalidRequest(`messages[${i}].content must be a string or an array of parts.`);
}

function decodeUserContent(content: unknown, i: number): Array<TextPart | ImagePart | FilePart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw errors.invalidRequest(`messages[${i}].content must be a string or an array of parts.`);
  return content.map((part, j) => decodeContentPart(part, `messages[${i}].content[${j}]`));
}

function decodeContentPart(part: unknown, where: string): TextPart | ImagePart | FilePart {
  if (!isRecord(part)) throw errors.invalidRequest(`${where} must be an object.`);
  if (part.type === 'file' && isRecord(part.file)) return decodeOpenAiFile(part.file, `${where}.file`);
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.type === 'image_url') {
    const image = isRecord(part.image_url) ? part.image_url : undefined;
    const url = readString(image?.url);
    if (!url) throw errors.invalidRequest(`${where}.image_url.url is required.`);
    const detail = image?.detail;
    const data = parseDataUrl(url);
    return {
      type: 'image',
      source: data ? { kind: 'base64', mediaType: data.mediaType, data: data.data } : { kind: 'url', url },
      ...(detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {}),
    };
  }
  throw errors.invalidRequest(`${where}: content part type '${String(part.type)}' is not supported; use text, image_url or file.`, 'unsupported_content');
}

function decodeAssistant(raw: Record<string, unknown>, i: number): Message {
  const parts: Part[] = [...readThinkingFields(raw)];
  const content = raw.content;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    for (const [j, part] of content.entries()) {
      if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
      else if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string') parts.push({ type: 'text', text: part.refusal });
      else throw errors.invalidRequest(`messages[${i}].content[${j}] must be a text or refusal part.`, 'unsupported_content');
    }
  }
  if (Array.isArray(raw.tool_calls)) {
    for (const [j, call] of raw.tool_calls.entries()) {
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      const id = isRecord(call) ? readString(call.id) : undefined;
      const name = readString(fn?.name);
      if (!id || !name) throw errors.invalidRequest(`messages[${i}].tool_calls[${j}] needs an id and function.name.`);
      parts.push({ type: 'tool_call', id, name, arguments: readString(fn?.arguments) || '{}' });
    }
  }
  return { role: 'assistant', parts };
}

function decodeToolContent(content: unknown, i: number): string | TextPart[] {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part, j) => {
      if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
      throw errors.invalidRequest(`messages[${i}].content[${j}] must be a text part.`, 'unsupported_content');
    });
  }
  return '';
}

function decodeTool(tool: unknown, i: number): ToolDefinition {
  if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) {
    throw errors.invalidRequest(`tools[${i}]: only tools of type 'function' are supported.`, 'unsupported_tool');
  }
  const fn = tool.function;
  const name = readString(fn.name);
  if (!name) throw errors.invalidRequest(`tools[${i}].function.name is required.`);
  const description = readString(fn.description);
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
  };
}

function decodeToolChoice(choice: unknown): ToolChoice {
  if (choice === 'none' || choice === 'auto' || choice === 'required') return { type: choice };
  if (isRecord(choice)) {
    if (choice.type === 'function' && isRecord(choice.function) && typeof choice.function.name === 'string') {
      return { type: 'tool', name: choice.function.name };
    }
    // allowed_tools restricts the set; the internal form cannot, so keep its mode (lossy).
    if (choice.type === 'allowed_tools' && isRecord(choice.allowed_tools)) {
      return { type: choice.allowed_tools.mode === 'required' ? 'required' : 'auto' };
    }
  }
  throw errors.invalidRequest('Unsupported `tool_choice`; use "none", "auto", "required" or {type:"function", function:{name}}.', 'invalid_parameter', { param: 'tool_choice' });
}

function decodeResponseFormat(format: unknown): ResponseFormat | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (format.type === 'json_schema' && isRecord(format.json_schema)) {
    const spec = format.json_schema;
    const name = readString(spec.name);
    return {
      type: 'json_schema',
      ...(name !== undefined ? { name } : {}),
      schema: isRecord(spec.schema) ? spec.schema : {},
      ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
    };
  }
  throw errors.invalidRequest(`Unsupported response_format type '${String(format.type)}'.`, 'invalid_parameter', { param: 'response_format' });
}
