import { errors } from '../../errors/gateway-error.js';
import type { Message, Part, TextPart, ToolResultPart } from '../internal.js';
import { appendToolResult, decodeContentParts, decodeInputImage } from './chat-messages.js';
import { asArray, asObject, readString, isRecord, type JsonObject } from '../shared/json.js';
import { decodeOpenAiFile } from '../shared/file-parts.js';
import { openSealedThinking, packReasoningData } from './reasoning-data.js';
import { openCompaction } from './compaction.js';

/**
 * Decodes a Responses `input` (a string, or a list of items) into system text and turns.
 * Items: messages (`{role, content}` with input_text / input_image / output_text parts),
 * `function_call`, `function_call_output` and `reasoning` items passed back from earlier turns
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
 * Consecutive assistant-side items (reasoning, message, function_call) form one assistant turn.
 */
export function decodeResponsesInput(input: unknown): { system: string[]; messages: Message[] } {
  if (typeof input === 'string') return { system: [], messages: input.length > 0 ? [{ role: 'user', parts: [{ type: 'text', text: input }] }] : [] };
  if (!Array.isArray(input)) throw errors.invalidRequest('input must be a string or an array of input items.', 'invalid_input');
  const system: string[] = [];
  const messages: Message[] = [];
  const callNames = new Map<string, string>();
  input.forEach((raw, index) => {
    const item = asObject(raw);
    const path = `input[${index}]`;
    const type = item.type ?? 'message';
    if (type === 'message') decodeMessageItem(item, path, system, messages);
    else if (type === 'function_call') {
      const callId = readString(item.call_id);
      const name = readString(item.name);
      if (callId === undefined || name === undefined) throw errors.invalidRequest(`${path} needs call_id and name.`, 'invalid_tool_call');
      callNames.set(callId, name);
      const args = readString(item.arguments);
      appendAssistantParts(messages, [{ type: 'tool_call', id: callId, name, arguments: args !== undefined && args.length > 0 ? args : '{}' }]);
    } else if (type === 'function_call_output') {
      appendToolResult(messages, decodeCallOutput(item, path, callNames));
    } else if (type === 'reasoning') {
      appendAssistantParts(messages, decodeReasoningItem(item));
    } else if (type === 'compaction') {
      // A compaction the gateway made unfolds into the items it holds; OpenAI's own are
      // readable by OpenAI only (a same-format passthrough carries them there untouched).
      const folded = openCompaction(readString(item.encrypted_content) ?? '');
      if (folded === undefined) throw errors.invalidRequest(`${path}: this compaction item was made by OpenAI and can only be sent back to an OpenAI Responses API model.`, 'unsupported_input_item');
      const unfolded = decodeResponsesInput(folded);
      system.push(...unfolded.system);
      messages.push(...unfolded.messages);
    } else if (type === 'item_reference') {
      throw errors.invalidRequest(`${path}: item_reference '${String(item.id)}' names no stored item for this key.`, 'item_not_found', { param: `${path}.id` });
    } else {
      throw errors.invalidRequest(`${path}: input item type '${String(type)}' is not supported.`, 'unsupported_input_item');
    }
  });
  return { system, messages };
}

function decodeMessageItem(item: JsonObject, path: string, system: string[], messages: Message[]): void {
  const role = item.role;
  const parts = decodeMessageContent(item.content, path);
  if (role === 'system' || role === 'developer') {
    const text = parts.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('\n');
    if (text.length > 0) system.push(text);
  } else if (role === 'user') {
    if (parts.length > 0) messages.push({ role: 'user', parts });
  } else if (role === 'assistant') {
    appendAssistantParts(messages, parts.filter((p) => p.type === 'text'));
  } else {
    throw errors.invalidRequest(`${path}.role must be one of user, assistant, system, developer.`, 'invalid_role');
  }
}

function decodeMessageContent(content: unknown, path: string): Part[] {
  if (!Array.isArray(content)) return decodeContentParts(content, path);
  return content.map((raw, index) => {
    const part = asObject(raw);
    if (part.type === 'input_image') return decodeInputImage(part, `${path}.content[${index}]`);
    if (part.type === 'input_file') return decodeOpenAiFile(part, `${path}.content[${index}]`);
    return decodeContentParts([part], path)[0] as Part;
  });
}

/** Adds assistant-side parts to the trailing assistant turn, opening one when needed. */
function appendAssistantParts(messages: Message[], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === 'assistant') last.parts.push(...parts);
  else messages.push({ role: 'assistant', parts });
}

function decodeCallOutput(item: JsonObject, path: string, callNames: Map<string, string>): ToolResultPart {
  const callId = readString(item.call_id);
  if (callId === undefined) throw errors.invalidRequest(`${path}.call_id is required.`, 'invalid_tool_result');
  const output = item.output;
  let content: ToolResultPart['content'];
  if (typeof output === 'string') content = output;
  else if (Array.isArray(output)) {
    const parts = decodeMessageContent(output, `${path}.output`).filter((p) => p.type === 'text' || p.type === 'image');
    content = parts.every((p) => p.type === 'text') ? parts.map((p) => (p as TextPart).text).join('') : (parts as ToolResultPart['content']);
  } else content = output === undefined || output === null ? '' : JSON.stringify(output);
  const result: ToolResultPart = { type: 'tool_result', toolCallId: callId, content };
  const name = readString(item.name) ?? callNames.get(callId);
  if (name !== undefined) result.name = name;
  return result;
}

/**
 * A reasoning item becomes one thinking part per summary (or reasoning_text) entry, then one
 * redacted_thinking part holding the id and encrypted content (see reasoning-data.ts).
 */
export function decodeReasoningItem(item: JsonObject): Part[] {
  const encryptedContent = readString(item.encrypted_content);
  // Signed thinking the gateway sealed comes back whole: exact texts and signatures.
  const sealed = encryptedContent !== undefined ? openSealedThinking(encryptedContent) : undefined;
  if (sealed !== undefined) return sealed;
  const parts: Part[] = [];
  for (const entry of [...asArray(item.summary), ...asArray(item.content)]) {
    const text = isRecord(entry) ? readString(entry.text) : undefined;
    if (text !== undefined && text.length > 0) parts.push({ type: 'thinking', text });
  }
  const encrypted = readString(item.encrypted_content);
  if (encrypted !== undefined && encrypted.length > 0) parts.push({ type: 'redacted_thinking', data: packReasoningData(readString(item.id), encrypted) });
  return parts;
}
