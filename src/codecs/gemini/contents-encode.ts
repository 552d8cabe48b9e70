import { parseJsonObject, type JsonObject } from '../shared/json.js';
import { errors } from '../../errors/gateway-error.js';
import type { FilePart, ImagePart, Message, Part, ToolResultPart } from '../internal.js';
import { guessMimeType } from './mime-types.js';
import { isSyntheticCallId } from './tool-ids.js';

/**
 * A placeholder signature Google documents for function calls whose real signature is lost (a
 * trace from another model or client that dropped it); without any, Gemini 3 answers 400
 * "Function call is missing a thought_signature" (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
 */
export const PLACEHOLDER_THOUGHT_SIGNATURE = 'context_engineering_is_the_way_to_go';

/** One Gemini `Content`: `{role: 'user' | 'model', parts}`. */
export interface GeminiContent { role: 'user' | 'model'; parts: JsonObject[] }

/**
 * Internal turns -> Gemini `contents` (https://ai.google.dev/api/generate-content#request-body).
 * Roles are `user` and `model` only: tool results are user turns of functionResponse parts, and
 * consecutive turns with the same role are merged. `signFunctionCalls` puts the placeholder
 * signature on the first call of a model turn that has none (Gemini 3 validates them).
 */
export function encodeGeminiContents(messages: Message[], signFunctionCalls: boolean): GeminiContent[] {
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'model' : 'user';
    let parts: JsonObject[];
    if (message.role === 'assistant') {
      parts = message.parts.flatMap((p) => encodeModelPart(p, callNames));
      if (signFunctionCalls) signFirstCall(parts);
    } else if (message.role === 'tool') parts = encodeToolTurn(message.parts, callNames);
    else parts = message.parts.flatMap(encodeUserPart);
    if (parts.length === 0) continue;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return contents;
}

function encodeUserPart(part: Part): JsonObject[] {
  if (part.type === 'text') return part.text.length > 0 ? [{ text: part.text }] : [];
  if (part.type === 'image') return [encodeImage(part)];
  if (part.type === 'file') return [encodeFile(part)];
  return [];
}

/** A file -> inlineData / fileData with its media type (Gemini reads PDFs and text files alike). */
function encodeFile(part: FilePart): JsonObject {
  const source = part.source;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const uri = source.kind === 'url' ? source.url : source.fileId;
  return { fileData: { mimeType: guessMimeType(uri, 'application/pdf'), fileUri: uri } };
}

/**
 * Base64 -> inlineData; an http(s) URL -> fileData with a mimeType guessed from its extension
 * (an image part, so image/jpeg when unknown); an uploaded file's URI -> fileData, with a mimeType
 * only when its name tells (Gemini knows the type of files it stored).
 */
export function encodeImage(part: ImagePart): JsonObject {
  const source = part.source;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  if (source.kind === 'url') return { fileData: { mimeType: guessMimeType(source.url, 'image/jpeg'), fileUri: source.url } };
  const mimeType = guessMimeType(source.fileId);
  return { fileData: mimeType !== undefined ? { mimeType, fileUri: source.fileId } : { fileUri: source.fileId } };
}

function encodeModelPart(part: Part, callNames: Map<string, string>): JsonObject[] {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? [{ text: part.text }] : [];
    case 'thinking': {
      // Thought summaries are echoed as received, signature included.
      const out: JsonObject = { text: part.text, thought: true };
      if (part.signature !== undefined) out.thoughtSignature = part.signature;
      return [out];
    }
    case 'tool_call': {
      callNames.set(part.id, part.name);
      const call: JsonObject = { name: part.name, args: parseJsonObject(part.arguments) ?? {} };
      if (!isSyntheticCallId(part.id)) call.id = part.id;
      const out: JsonObject = { functionCall: call };
      if (part.signature !== undefined) out.thoughtSignature = part.signature;
      return [out];
    }
    default:
      return []; // redacted_thinking (another provider's encrypted reasoning) has no Gemini form
  }
}

function signFirstCall(parts: JsonObject[]): void {
  const calls = parts.filter((p) => p.functionCall !== undefined);
  const first = calls[0];
  if (first !== undefined && calls.every((p) => p.thoughtSignature === undefined)) first.thoughtSignature = PLACEHOLDER_THOUGHT_SIGNATURE;
}

/**
 * A tool turn -> one functionResponse per result, in call order, then any images the results
 * carried (inlineData / fileData parts after the responses).
 */
function encodeToolTurn(parts: Part[], callNames: Map<string, string>): JsonObject[] {
  const results = parts.filter((p): p is ToolResultPart => p.type === 'tool_result');
  const images = results.flatMap((r) => (typeof r.content === 'string' ? [] : r.content.filter((p): p is ImagePart => p.type === 'image')));
  return [...results.map((r) => encodeFunctionResponse(r, callNames)), ...images.map(encodeImage)];
}

/**
 * A tool result -> functionResponse. `response` must be a JSON object, so the text is wrapped as
 * `{result}` (`{error}` for failed calls). Gemini needs the function name: the result's own, or
 * the name of the call it answers.
 */
function encodeFunctionResponse(part: ToolResultPart, callNames: Map<string, string>): JsonObject {
  const name = part.name ?? callNames.get(part.toolCallId);
  if (name === undefined) {
    throw errors.invalidRequest(`Tool result '${part.toolCallId}' does not answer any earlier tool call, and Gemini needs the function name.`, 'unknown_tool_call');
  }
  const text = typeof part.content === 'string' ? part.content : part.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const response: JsonObject = { name, response: part.isError === true ? { error: text } : { result: text } };
  if (!isSyntheticCallId(part.toolCallId)) response.id = part.toolCallId;
  return { functionResponse: response };
}
