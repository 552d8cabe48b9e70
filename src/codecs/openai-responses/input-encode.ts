import type { FilePart, ImagePart, Message, Part, TextPart, ToolResultPart } from '../internal.js';
import { formatDataUrl } from '../shared/data-url.js';
import { formatImageUrl } from './images.js';
import type { JsonObject } from '../shared/json.js';
import { groupAssistantParts, isReasoningGroup } from './reasoning-items.js';

/**
 * Internal turns -> Responses input items
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
 * Reasoning items are sent only when they carry an OpenAI id and encrypted content: with
 * `store:false` an item referenced by id alone cannot be found upstream ("Item with id 'rs_...'
 * not found"), and encrypted content from another provider cannot be decrypted.
 */
export function encodeResponsesInput(messages: Message[]): JsonObject[] {
  const items: JsonObject[] = [];
  for (const message of messages) {
    if (message.role === 'user') items.push({ type: 'message', role: 'user', content: message.parts.flatMap(encodeUserPart) });
    else if (message.role === 'tool') {
      for (const part of message.parts) if (part.type === 'tool_result') items.push(encodeToolResult(part));
    } else items.push(...encodeAssistantParts(message.parts));
  }
  return items;
}

function encodeUserPart(part: Part): JsonObject[] {
  if (part.type === 'text') return [{ type: 'input_text', text: part.text }];
  if (part.type === 'image') return [encodeImage(part)];
  if (part.type === 'file') return [encodeFile(part)];
  return [];
}

/** A file part -> `input_file` (https://platform.openai.com/docs/guides/pdf-files). */
function encodeFile(part: FilePart): JsonObject {
  const source = part.source;
  const out: JsonObject = { type: 'input_file' };
  if (source.kind === 'base64') {
    out.filename = part.filename ?? 'file';
    out.file_data = formatDataUrl(source.mediaType, source.data);
  } else {
    if (part.filename !== undefined) out.filename = part.filename;
    if (source.kind === 'url') out.file_url = source.url;
    else out.file_id = source.fileId;
  }
  return out;
}

function encodeImage(part: ImagePart): JsonObject {
  const url = formatImageUrl(part.source);
  const out: JsonObject = { type: 'input_image', detail: part.detail ?? 'auto' };
  if (url !== undefined) out.image_url = url;
  else if (part.source.kind === 'file') out.file_id = part.source.fileId;
  return out;
}

function encodeAssistantParts(parts: Part[]): JsonObject[] {
  const items: JsonObject[] = [];
  let text: string[] = [];
  const flushText = (): void => {
    if (text.length > 0) items.push({ type: 'message', role: 'assistant', content: text.join('') });
    text = [];
  };
  for (const entry of groupAssistantParts(parts)) {
    if (isReasoningGroup(entry)) {
      // Without an OpenAI id the content came from another provider and cannot be decrypted here.
      if (entry.encrypted === undefined || entry.id === undefined) continue;
      flushText();
      items.push({ type: 'reasoning', id: entry.id, summary: entry.summaries.map((t) => ({ type: 'summary_text', text: t })), encrypted_content: entry.encrypted });
    } else if (entry.type === 'text') text.push(entry.text);
    else if (entry.type === 'tool_call') {
      flushText();
      items.push({ type: 'function_call', call_id: entry.id, name: entry.name, arguments: entry.arguments });
    }
  }
  flushText();
  return items;
}

function encodeToolResult(part: ToolResultPart): JsonObject {
  const output = typeof part.content === 'string'
    ? part.content
    : part.content.map((p: TextPart | ImagePart) => (p.type === 'text' ? { type: 'input_text', text: p.text } : encodeImage(p)));
  return { type: 'function_call_output', call_id: part.toolCallId, output };
}
