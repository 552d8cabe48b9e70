/**
 * Anthropic content blocks <-> internal parts, shared by the request and response codecs.
 * Block shapes: https://docs.anthropic.com/en/api/messages (content blocks).
 */
import { errors } from '../../errors/gateway-error.js';
import type { FilePart, ImagePart, ImageSource, Part, TextPart, ToolResultPart } from '../internal.js';
import { isRecord, parseJsonObject, readString } from '../shared/json.js';
import type { ContentBlock, DocumentBlock, ImageBlock, TextBlock, ToolResultBlock } from './wire-types.js';

/** An image source block -> internal source; undefined when the shape is unknown. */
export function readImageSource(source: unknown): ImageSource | undefined {
  if (!isRecord(source)) return undefined;
  if (source.type === 'base64' && typeof source.data === 'string') {
    return { kind: 'base64', mediaType: readString(source.media_type) ?? 'image/png', data: source.data };
  }
  if (source.type === 'url' && typeof source.url === 'string') return { kind: 'url', url: source.url };
  if (source.type === 'file' && typeof source.file_id === 'string') return { kind: 'file', fileId: source.file_id };
  return undefined;
}

/**
 * One client request block -> internal part. Throws GatewayError 400 for blocks the internal
 * form cannot carry (documents, server-tool blocks ...), naming where.
 */
export function decodeRequestBlock(block: unknown, where: string): Part {
  if (!isRecord(block)) throw errors.invalidRequest(`${where} must be a content block object.`);
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') return { type: 'text', text: block.text };
      break;
    case 'image': {
      const source = readImageSource(block.source);
      if (source) return { type: 'image', source };
      break;
    }
    case 'tool_use':
      if (typeof block.id === 'string' && typeof block.name === 'string') {
        return { type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(isRecord(block.input) ? block.input : {}) };
      }
      break;
    case 'tool_result':
      if (typeof block.tool_use_id === 'string') return decodeToolResult(block, where);
      break;
    case 'thinking':
      if (typeof block.thinking === 'string') {
        const signature = readString(block.signature);
        return { type: 'thinking', text: block.thinking, ...(signature ? { signature } : {}) };
      }
      break;
    case 'redacted_thinking':
      if (typeof block.data === 'string') return { type: 'redacted_thinking', data: block.data };
      break;
    default:
      throw errors.invalidRequest(`${where}: content block type '${String(block.type)}' is not supported by this gateway.`, 'unsupported_content');
  }
  throw errors.invalidRequest(`${where}: malformed '${String(block.type)}' block.`);
}

function decodeToolResult(block: Record<string, unknown>, where: string): ToolResultPart {
  let content: ToolResultPart['content'] = '';
  if (typeof block.content === 'string') content = block.content;
  else if (Array.isArray(block.content)) {
    content = block.content.map((inner, j) => {
      const part = decodeRequestBlock(inner, `${where}.content[${j}]`);
      if (part.type !== 'text' && part.type !== 'image') throw errors.invalidRequest(`${where}.content[${j}] must be a text or image block.`, 'unsupported_content');
      return part;
    });
  }
  return { type: 'tool_result', toolCallId: String(block.tool_use_id), content, ...(block.is_error === true ? { isError: true } : {}) };
}

/**
 * One upstream response block -> internal part. Lenient: blocks of server tools
 * (server_tool_use, web_search_tool_result ...) have no internal form and are skipped.
 */
export function readResponseBlock(block: unknown): Part | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'tool_use' && typeof block.id === 'string') {
    return { type: 'tool_call', id: block.id, name: readString(block.name) ?? '', arguments: JSON.stringify(isRecord(block.input) ? block.input : {}) };
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const signature = readString(block.signature);
    return { type: 'thinking', text: block.thinking, ...(signature ? { signature } : {}) };
  }
  if (block.type === 'redacted_thinking' && typeof block.data === 'string') return { type: 'redacted_thinking', data: block.data };
  return undefined;
}

/**
 * Tool ids must match `^[a-zA-Z0-9_-]+$` on Anthropic. Ids from other providers usually do; any
 * other character becomes `_`, applied identically to tool_use and tool_result so pairs still match.
 */
export function toAnthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? 'toolu_' : clean;
}

/** Internal image -> image block (base64, url or Anthropic Files API file id). */
export function encodeImageBlock(part: ImagePart): ImageBlock {
  const s = part.source;
  if (s.kind === 'base64') return { type: 'image', source: { type: 'base64', media_type: s.mediaType, data: s.data } };
  if (s.kind === 'url') return { type: 'image', source: { type: 'url', url: s.url } };
  return { type: 'image', source: { type: 'file', file_id: s.fileId } };
}

/**
 * Internal file -> document block: a PDF (base64, URL or uploaded file) or plain text (decoded);
 * any other inline type is a 400, as Anthropic reads only those.
 */
export function encodeDocumentBlock(part: FilePart): DocumentBlock {
  const s = part.source;
  const title = part.filename !== undefined ? { title: part.filename } : {};
  if (s.kind === 'url') return { type: 'document', source: { type: 'url', url: s.url }, ...title };
  if (s.kind === 'file') return { type: 'document', source: { type: 'file', file_id: s.fileId }, ...title };
  if (s.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: s.data }, ...title };
  if (s.mediaType.startsWith('text/')) return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(s.data, 'base64').toString('utf8') }, ...title };
  throw errors.invalidRequest(`Files of type '${s.mediaType}' cannot be sent to this provider; send a PDF or plain text.`, 'unsupported_content');
}

/** Text block, or nothing for empty text (an empty text block is a 400 on Anthropic). */
export function encodeTextBlock(part: TextPart): TextBlock[] {
  return part.text === '' ? [] : [{ type: 'text', text: part.text }];
}

/** Internal tool result -> tool_result block; empty string content is left out. */
export function encodeToolResultBlock(part: ToolResultPart): ToolResultBlock {
  let content: ToolResultBlock['content'];
  if (typeof part.content === 'string') content = part.content === '' ? undefined : part.content;
  else {
    const blocks = part.content.flatMap((p): Array<TextBlock | ImageBlock> => (p.type === 'text' ? encodeTextBlock(p) : [encodeImageBlock(p)]));
    content = blocks.length > 0 ? blocks : undefined;
  }
  return {
    type: 'tool_result',
    tool_use_id: toAnthropicToolId(part.toolCallId),
    ...(content !== undefined ? { content } : {}),
    ...(part.isError ? { is_error: true } : {}),
  };
}

/**
 * An assistant part -> block. Thinking without a signature (from another provider) cannot be
 * verified by Anthropic and is dropped; tool arguments that are not a JSON object become `{}`.
 */
export function encodeAssistantBlock(part: Part, forResponse: boolean): ContentBlock[] {
  switch (part.type) {
    case 'text':
      return encodeTextBlock(part);
    case 'tool_call':
      return [{ type: 'tool_use', id: forResponse ? part.id : toAnthropicToolId(part.id), name: part.name, input: parseJsonObject(part.arguments) ?? {} }];
    case 'thinking':
      return part.signature || forResponse ? [{ type: 'thinking', thinking: part.text, signature: part.signature ?? '' }] : [];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: part.data }];
    case 'image':
      return forResponse ? [] : [encodeImageBlock(part)];
    default:
      return [];
  }
}
