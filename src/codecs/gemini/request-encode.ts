import type { DialectRequest, DialectTarget } from '../codec.js';
import type { Conversation } from '../internal.js';
import type { JsonObject } from '../shared/json.js';
import { supportsSetting } from '../openai-responses/supported-params.js';
import { encodeGenerationConfig, encodeGeminiTools, encodeToolConfig } from './config-encode.js';
import { encodeGeminiContents } from './contents-encode.js';
import { isGemini3OrLater, stripModelsPrefix } from './model-version.js';

/**
 * Internal form -> Gemini generateContent (base URL https://generativelanguage.googleapis.com,
 * as @google/genai uses it). Streams use `:streamGenerateContent?alt=sse`: without `alt=sse` the
 * body is one JSON array, not SSE. Gemini reports usage in every stream chunk, so nothing has to
 * be asked for. https://ai.google.dev/api/generate-content
 */
export function encodeGeminiRequest(request: Conversation, target: DialectTarget): DialectRequest {
  const model = stripModelsPrefix(target.upstreamModel);
  const body: JsonObject = { contents: encodeGeminiContents(request.messages, isGemini3OrLater(model)) };
  if (request.system.length > 0) body.systemInstruction = { parts: request.system.map((text) => ({ text })) };
  if (request.tools !== undefined && request.tools.length > 0 && supportsSetting(target, 'tools')) {
    body.tools = encodeGeminiTools(request.tools);
    if (request.toolChoice !== undefined && supportsSetting(target, 'toolChoice')) body.toolConfig = encodeToolConfig(request.toolChoice);
  }
  const generationConfig = encodeGenerationConfig(request, target);
  if (generationConfig !== undefined) body.generationConfig = generationConfig;
  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { path: `/v1beta/models/${encodeURIComponent(model)}:${method}`, body };
}
