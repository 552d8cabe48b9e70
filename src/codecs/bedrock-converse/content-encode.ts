/**
 * Internal turns -> Converse `messages` (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html).
 * Each content block is a union with exactly one key (`text`, `image`, `document`, `toolUse`,
 * `toolResult`, `reasoningContent` ...). Roles are `user` and `assistant` only: tool results are
 * user turns of toolResult blocks, and consecutive turns of one role merge (Converse rejects two
 * user turns in a row).
 */
import { errors } from '../../errors/gateway-error.js';
import type { ImagePart, Message, Part, ToolResultPart } from '../internal.js';
import { parseDataUrl } from '../shared/data-url.js';
import { parseJsonObject, type JsonObject } from '../shared/json.js';
import { roleTurns } from '../shared/role-turns.js';
import { cachePointAfter } from './cache-points.js';

/** One Converse message. */
export interface ConverseMessage { role: 'user' | 'assistant'; content: JsonObject[] }

/** Image formats Converse takes (`ImageBlock.format`), by media type. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
/** Document formats Converse takes (`DocumentBlock.format`), by media type. */
const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf', 'text/csv': 'csv', 'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html', 'text/plain': 'txt', 'text/markdown': 'md',
};

/**
 * Tool ids must match `^[a-zA-Z0-9_-]+$` (ToolUseBlock.toolUseId); other characters become `_`,
 * identically on toolUse and toolResult so pairs still match.
 */
export function toConverseToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? 'tooluse_' : clean;
}

/**
 * Internal turns -> Converse messages (shared/role-turns.ts: tool results first in their user
 * turn). A part marked with a prompt-cache breakpoint is followed by a `cachePoint` block when
 * the model caches in messages (`cachePoints`).
 */
export function encodeConverseMessages(messages: readonly Message[], cachePoints = false): ConverseMessage[] {
  let documents = 0;
  const nextDocument = () => ++documents;
  return roleTurns<JsonObject>(messages, (part, role) => {
    const blocks = role === 'assistant' ? encodeAssistantPart(part) : encodeUserPart(part, nextDocument);
    return blocks.length > 0 && 'cacheControl' in part ? [...blocks, ...cachePointAfter(part.cacheControl, cachePoints)] : blocks;
  }, (block) => block.toolResult !== undefined);
}

/** A user (or tool) turn's part: text, media, a tool result. */
function encodeUserPart(part: Part, nextDocument: () => number): JsonObject[] {
  if (part.type === 'image') return [encodeMedia(part, nextDocument)];
  if (part.type === 'tool_result') return [encodeToolResult(part, nextDocument)];
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
  return [];
}

/**
 * An assistant part. Reasoning goes back as `reasoningContent` only with its signature (Claude
 * on Bedrock verifies it; unsigned thinking from another provider cannot be replayed).
 */
function encodeAssistantPart(part: Part): JsonObject[] {
  switch (part.type) {
    case 'text': return part.text === '' ? [] : [{ text: part.text }];
    case 'tool_call': return [{ toolUse: { toolUseId: toConverseToolId(part.id), name: part.name, input: parseJsonObject(part.arguments) ?? {} } }];
    case 'thinking': return part.signature ? [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }] : [];
    case 'redacted_thinking': return [{ reasoningContent: { redactedContent: part.data } }];
    default: return [];
  }
}

/**
 * An image part -> `image` (png, jpeg, gif, webp) or `document` (pdf, csv, docx, txt ... when a
 * client sent a document as base64 or a data: URL). Converse takes bytes (or S3 locations), not
 * URLs: an http(s) URL still here is a 400 naming the limit.
 */
function encodeMedia(part: ImagePart, nextDocument: () => number): JsonObject {
  const source = part.source;
  let mediaType: string;
  let data: string;
  if (source.kind === 'base64') {
    mediaType = source.mediaType;
    data = source.data;
  } else if (source.kind === 'url' && source.url.startsWith('data:')) {
    const parsed = parseDataUrl(source.url);
    if (!parsed) throw errors.invalidRequest('An image data: URL is malformed.', 'invalid_image');
    mediaType = parsed.mediaType;
    data = parsed.data;
  } else {
    throw errors.invalidRequest(`Bedrock Converse takes images as bytes, not ${source.kind === 'file' ? 'uploaded file ids' : 'URLs'}: send the image as base64 (a data: URL).`, 'unsupported_content');
  }
  const type = mediaType.toLowerCase().split(';')[0]!.trim();
  const image = IMAGE_FORMATS[type];
  if (image) return { image: { format: image, source: { bytes: data } } };
  const document = DOCUMENT_FORMATS[type];
  // DocumentBlock.name is required and may hold only letters, digits, spaces, hyphens, parentheses and brackets.
  if (document) return { document: { format: document, name: `document ${nextDocument()}`, source: { bytes: data } } };
  throw errors.invalidRequest(`Bedrock Converse cannot take content of type '${type}'.`, 'unsupported_content');
}

/** A tool result -> `toolResult` with text/image content and `status: error` when it failed. */
function encodeToolResult(part: ToolResultPart, nextDocument: () => number): JsonObject {
  const content = typeof part.content === 'string'
    ? [{ text: part.content }]
    : part.content.map((p) => (p.type === 'text' ? { text: p.text } : encodeMedia(p, nextDocument)));
  const block: JsonObject = { toolUseId: toConverseToolId(part.toolCallId), content: content.length > 0 ? content : [{ text: '' }] };
  if (part.isError) block.status = 'error';
  return { toolResult: block };
}
