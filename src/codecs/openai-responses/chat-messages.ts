import { errors } from '../../errors/gateway-error.js';
import type { ImagePart, Message, Part, TextPart, ToolResultPart } from '../internal.js';
import { parseImageUrl } from './images.js';
import { asArray, asObject, readString, isRecord } from '../shared/json.js';

/**
 * Decodes SPEC 2.3 chat messages (`{role, content, tool_calls, tool_call_id, name}`), the message
 * form the responses, research and robotics surfaces accept next to their own input shapes.
 * System and developer messages go to `system`; consecutive tool messages become one tool turn.
 */
export function decodeChatMessages(raw: unknown[], where = 'messages'): { system: string[]; messages: Message[] } {
  const system: string[] = [];
  const messages: Message[] = [];
  raw.forEach((value, index) => {
    const message = asObject(value);
    const role = message.role;
    const path = `${where}[${index}]`;
    if (role === 'system' || role === 'developer') {
      const text = decodeContentParts(message.content, path).filter(isText).map((p) => p.text).join('\n');
      if (text.length > 0) system.push(text);
    } else if (role === 'user') {
      const parts = decodeContentParts(message.content, path);
      if (parts.length > 0) messages.push({ role: 'user', parts });
    } else if (role === 'assistant') {
      const parts: Part[] = decodeContentParts(message.content, path).filter(isText);
      asArray(message.tool_calls).forEach((call, callIndex) => parts.push(decodeToolCall(call, `${path}.tool_calls[${callIndex}]`)));
      if (parts.length > 0) messages.push({ role: 'assistant', parts });
    } else if (role === 'tool') {
      appendToolResult(messages, decodeToolResult(message, path));
    } else {
      throw errors.invalidRequest(`${path}.role must be one of system, developer, user, assistant, tool.`, 'invalid_role');
    }
  });
  return { system, messages };
}

/** Adds a tool result to the trailing tool turn, opening one when the last turn is not a tool turn. */
export function appendToolResult(messages: Message[], result: ToolResultPart): void {
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === 'tool') last.parts.push(result);
  else messages.push({ role: 'tool', parts: [result] });
}

function isText(part: Part): part is TextPart {
  return part.type === 'text';
}

/** Content as a string, null, or an array of chat / responses content parts. */
export function decodeContentParts(content: unknown, path: string): Array<TextPart | ImagePart> {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw errors.invalidRequest(`${path}.content must be a string or an array of parts.`, 'invalid_content');
  return content.map((raw, index) => decodeContentPart(raw, `${path}.content[${index}]`));
}

function decodeContentPart(raw: unknown, path: string): TextPart | ImagePart {
  const part = asObject(raw);
  switch (part.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: readString(part.text) ?? '' };
    case 'refusal':
      return { type: 'text', text: readString(part.refusal) ?? '' };
    case 'image_url': {
      // Chat form: {type:'image_url', image_url:{url, detail}} (a bare string is tolerated).
      const image = part.image_url;
      const url = typeof image === 'string' ? image : readString(asObject(image).url);
      if (url === undefined) throw errors.invalidRequest(`${path}.image_url.url is required.`, 'invalid_content');
      return parseImageUrl(url, asObject(image).detail);
    }
    case 'input_image':
      return decodeInputImage(part, path);
    default:
      throw errors.invalidRequest(`${path}.type '${String(part.type)}' is not supported here; use text or image parts.`, 'unsupported_content');
  }
}

/** Responses `input_image`: `{image_url}` (URL or data URL) or `{file_id}`, plus `detail`. */
export function decodeInputImage(part: Record<string, unknown>, path: string): ImagePart {
  const url = readString(part.image_url);
  const fileId = readString(part.file_id);
  if (url !== undefined) return parseImageUrl(url, part.detail);
  if (fileId !== undefined) {
    const image: ImagePart = { type: 'image', source: { kind: 'file', fileId } };
    if (part.detail === 'auto' || part.detail === 'low' || part.detail === 'high') image.detail = part.detail;
    return image;
  }
  throw errors.invalidRequest(`${path} needs image_url or file_id.`, 'invalid_content');
}

function decodeToolCall(raw: unknown, path: string): Part {
  const call = asObject(raw);
  const fn = asObject(call.function);
  const id = readString(call.id);
  const name = readString(fn.name);
  if (id === undefined || name === undefined) throw errors.invalidRequest(`${path} needs id and function.name.`, 'invalid_tool_call');
  const args = fn.arguments;
  const text = typeof args === 'string' ? args : isRecord(args) ? JSON.stringify(args) : '{}';
  return { type: 'tool_call', id, name, arguments: text.length > 0 ? text : '{}' };
}

function decodeToolResult(message: Record<string, unknown>, path: string): ToolResultPart {
  const toolCallId = readString(message.tool_call_id);
  if (toolCallId === undefined) throw errors.invalidRequest(`${path}.tool_call_id is required on tool messages.`, 'invalid_tool_result');
  const parts = decodeContentParts(message.content, path);
  const onlyText = parts.every(isText);
  const result: ToolResultPart = {
    type: 'tool_result',
    toolCallId,
    content: onlyText ? parts.map((p) => (p as TextPart).text).join('') : parts,
  };
  const name = readString(message.name);
  if (name !== undefined) result.name = name;
  return result;
}
