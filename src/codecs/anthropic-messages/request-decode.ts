/**
 * Messages client body -> internal Conversation (the messages surface's decodeRequest).
 * Reference: https://docs.anthropic.com/en/api/messages
 */
import { errors } from '../../errors/gateway-error.js';
import type { Conversation, Message, Part, ResponseFormat, ToolChoice, ToolDefinition } from '../internal.js';
import { isRecord, readNumber, readString } from '../shared/json.js';
import { decodeRequestBlock } from './content-blocks.js';
import { cacheControlOf, readCacheControl } from '../shared/cache-control.js';
import { decodeReasoning } from './thinking-config.js';

/** Decodes a validated messages body. Throws GatewayError 400 on what has no internal form. */
export function decodeMessagesRequest(body: Record<string, unknown>): Conversation {
  if (!Array.isArray(body.messages)) throw errors.invalidRequest('`messages` must be an array.');
  const conversation: Conversation = {
    model: String(body.model),
    system: [],
    messages: [],
    stream: body.stream === true,
  };
  addSystem(conversation, body.system);
  for (const [i, raw] of body.messages.entries()) decodeMessage(raw, i, conversation);
  nameToolResults(conversation.messages);

  if (Array.isArray(body.tools)) conversation.tools = body.tools.map(decodeTool);
  if (isRecord(body.tool_choice)) {
    const { choice, parallel } = decodeToolChoice(body.tool_choice);
    conversation.toolChoice = choice;
    if (parallel !== undefined) conversation.parallelToolCalls = parallel;
  }
  const maxTokens = readNumber(body.max_tokens);
  if (maxTokens !== undefined) conversation.maxOutputTokens = maxTokens;
  const temperature = readNumber(body.temperature);
  if (temperature !== undefined) conversation.temperature = temperature;
  const topP = readNumber(body.top_p);
  if (topP !== undefined) conversation.topP = topP;
  const topK = readNumber(body.top_k);
  if (topK !== undefined) conversation.topK = topK;
  if (Array.isArray(body.stop_sequences)) {
    const stop = body.stop_sequences.filter((s): s is string => typeof s === 'string');
    if (stop.length > 0) conversation.stop = stop;
  }
  const reasoning = decodeReasoning(body);
  if (reasoning) conversation.reasoning = reasoning;
  // `output_format` is the structured-outputs beta's spelling (structured-outputs-2025-11-13) of output_config.format.
  const format = decodeOutputFormat(isRecord(body.output_config) && body.output_config.format !== undefined ? body.output_config : { format: body.output_format });
  if (format) conversation.responseFormat = format;
  if (isRecord(body.metadata)) {
    const user = readString(body.metadata.user_id);
    if (user !== undefined) conversation.user = user;
  }
  return conversation;
}

/** Top-level `system`: a string, or text blocks (one internal entry each, with its cache breakpoint). */
function addSystem(conversation: Conversation, system: unknown): void {
  if (system === undefined || system === null) return;
  if (typeof system === 'string') {
    if (system !== '') conversation.system.push(system);
    return;
  }
  if (!Array.isArray(system)) throw errors.invalidRequest('`system` must be a string or an array of text blocks.');
  system.forEach((block, i) => {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') throw errors.invalidRequest(`system[${i}] must be a text block.`, 'unsupported_content');
    if (block.text === '') return;
    const control = readCacheControl(block.cache_control);
    if (control) (conversation.systemCache ??= {})[conversation.system.length] = control;
    conversation.system.push(block.text);
  });
}

/**
 * One message. A user turn's tool_result blocks become an internal tool turn placed before the
 * turn's other content (Anthropic puts results first; any text follows them).
 * `{role:'system'}` entries (newest SDK types) join the system instructions.
 */
function decodeMessage(raw: unknown, i: number, conversation: Conversation): void {
  if (!isRecord(raw)) throw errors.invalidRequest(`messages[${i}] must be an object.`);
  const role = raw.role;
  if (role === 'system') {
    addSystem(conversation, raw.content);
    return;
  }
  if (role !== 'user' && role !== 'assistant') throw errors.invalidRequest(`messages[${i}].role '${String(role)}' is not supported.`, 'unsupported_role');
  let parts: Part[];
  if (typeof raw.content === 'string') parts = raw.content === '' ? [] : [{ type: 'text', text: raw.content }];
  else if (Array.isArray(raw.content)) parts = raw.content.map((block, j) => decodeRequestBlock(block, `messages[${i}].content[${j}]`));
  else throw errors.invalidRequest(`messages[${i}].content must be a string or an array of blocks.`);

  if (role === 'assistant') {
    if (parts.some((p) => p.type === 'tool_result')) throw errors.invalidRequest(`messages[${i}]: tool_result blocks belong in user turns.`);
    push(conversation.messages, { role: 'assistant', parts });
    return;
  }
  if (parts.some((p) => p.type === 'tool_call' || p.type === 'thinking' || p.type === 'redacted_thinking')) {
    throw errors.invalidRequest(`messages[${i}]: tool_use and thinking blocks belong in assistant turns.`);
  }
  push(conversation.messages, { role: 'tool', parts: parts.filter((p) => p.type === 'tool_result') });
  push(conversation.messages, { role: 'user', parts: parts.filter((p) => p.type !== 'tool_result') });
}

/** Tool results carry only the call id; dialects matching results by name (Gemini) need it. */
function nameToolResults(messages: Message[]): void {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool_call') names.set(part.id, part.name);
      else if (part.type === 'tool_result' && part.name === undefined) {
        const name = names.get(part.toolCallId);
        if (name !== undefined) part.name = name;
      }
    }
  }
}

function push(messages: Message[], message: Message): void {
  if (message.parts.length > 0) messages.push(message);
}

function decodeTool(tool: unknown, i: number): ToolDefinition {
  // Client tools have no type or `custom`; server tools (web_search_..., bash_...) carry a dated type.
  if (!isRecord(tool) || (tool.type !== undefined && tool.type !== 'custom') || typeof tool.name !== 'string') {
    throw errors.invalidRequest(`tools[${i}]: only custom tools {name, description, input_schema} are supported.`, 'unsupported_tool');
  }
  const description = readString(tool.description);
  return {
    name: tool.name,
    ...(description !== undefined ? { description } : {}),
    parameters: isRecord(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} },
    ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    ...cacheControlOf(tool.cache_control),
  };
}

function decodeToolChoice(choice: Record<string, unknown>): { choice: ToolChoice; parallel?: boolean } {
  const parallel = choice.disable_parallel_tool_use === true ? false : undefined;
  const withParallel = (c: ToolChoice) => (parallel === undefined ? { choice: c } : { choice: c, parallel });
  switch (choice.type) {
    case 'auto': return withParallel({ type: 'auto' });
    case 'any': return withParallel({ type: 'required' });
    case 'none': return { choice: { type: 'none' } };
    case 'tool':
      if (typeof choice.name === 'string') return withParallel({ type: 'tool', name: choice.name });
      break;
  }
  throw errors.invalidRequest('Unsupported `tool_choice`; use {type:"auto"|"any"|"none"} or {type:"tool", name}.', 'invalid_parameter', { param: 'tool_choice' });
}

function decodeOutputFormat(config: unknown): ResponseFormat | undefined {
  if (!isRecord(config) || config.format === undefined || config.format === null) return undefined;
  if (!isRecord(config.format)) throw errors.invalidRequest('output_config.format must be an object.', 'invalid_parameter', { param: 'output_config.format' });
  if (config.format.type === 'json_schema' && isRecord(config.format.schema)) return { type: 'json_schema', schema: config.format.schema };
  throw errors.invalidRequest(`Unsupported output_config.format type '${String(config.format.type)}'.`, 'invalid_parameter', { param: 'output_config.format' });
}
