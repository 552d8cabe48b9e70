import type { Conversation, FinishReason, InternalResponse, Part, Usage } from '../internal.js';
import { makeRandomSuffix } from '../openai-responses/ids.js';
import { asArray, readNumber, asObject, readString, type JsonObject } from '../shared/json.js';
import { makeSyntheticCallId } from './tool-ids.js';
import { throwIfErrorAnswer } from '../shared/error-body.js';

/**
 * Gemini GenerateContentResponse -> internal answer (https://ai.google.dev/api/generate-content#generatecontentresponse).
 * Only the first candidate is read (the gateway never asks for more).
 */
export function decodeGeminiResponse(body: unknown, request: Conversation): InternalResponse {
  throwIfErrorAnswer(body);
  const response = asObject(body);
  const id = readString(response.responseId) ?? `gemini_${makeRandomSuffix()}`;
  const candidate = asObject(asArray(response.candidates)[0]);
  const content = decodeCandidateParts(asArray(asObject(candidate.content).parts), id, 0);
  const hasToolCalls = content.some((p) => p.type === 'tool_call');
  return {
    id,
    model: readString(response.modelVersion) ?? request.model,
    created: readCreated(response),
    content,
    finishReason: asArray(response.candidates).length > 0 ? decodeFinishReason(readString(candidate.finishReason), hasToolCalls) : decodeBlockedPrompt(response),
    usage: decodeGeminiUsage(response.usageMetadata),
  };
}

/**
 * Candidate parts -> internal parts. `thought: true` text is thinking; functionCall parts are
 * tool calls with their thoughtSignature; ids are synthesized when Gemini sends none
 * (`firstCall` numbers them across stream chunks). Signatures on plain text parts are optional to
 * echo (only function calls are validated) and are not kept.
 */
export function decodeCandidateParts(parts: unknown[], responseId: string, firstCall: number): Part[] {
  const out: Part[] = [];
  let calls = firstCall;
  for (const raw of parts) {
    const part = asObject(raw);
    const signature = readString(part.thoughtSignature);
    const call = part.functionCall;
    if (call !== undefined) {
      const fn = asObject(call);
      const toolCall: Part = { type: 'tool_call', id: readString(fn.id) ?? makeSyntheticCallId(responseId, calls), name: readString(fn.name) ?? '', arguments: JSON.stringify(fn.args ?? {}) };
      if (signature !== undefined) toolCall.signature = signature;
      calls += 1;
      out.push(toolCall);
      continue;
    }
    const text = readString(part.text);
    if (part.thought === true && (text !== undefined || signature !== undefined)) {
      const thinking: Part = { type: 'thinking', text: text ?? '' };
      if (signature !== undefined) thinking.signature = signature;
      out.push(thinking);
    } else if (text !== undefined && text.length > 0) out.push({ type: 'text', text });
  }
  return out;
}

/**
 * finishReason -> internal. A reply with function calls still says STOP, so calls decide
 * `tool_calls`; safety-type stops are content filtering (https://ai.google.dev/api/generate-content#FinishReason).
 */
export function decodeFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'LANGUAGE':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content_filter';
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return 'error';
    default:
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}

/** No candidates at all: the prompt itself was blocked (`promptFeedback.blockReason`). */
export function decodeBlockedPrompt(response: JsonObject): FinishReason {
  return readString(asObject(response.promptFeedback).blockReason) !== undefined ? 'content_filter' : 'stop';
}

/**
 * usageMetadata -> internal usage: prompt = promptTokenCount (cached tokens included);
 * output = candidatesTokenCount + thoughtsTokenCount; reasoning = thoughtsTokenCount.
 */
export function decodeGeminiUsage(raw: unknown): Usage {
  const usage = asObject(raw);
  const thoughts = readNumber(usage.thoughtsTokenCount) ?? 0;
  const out: Usage = { inputTokens: readNumber(usage.promptTokenCount) ?? 0, outputTokens: (readNumber(usage.candidatesTokenCount) ?? 0) + thoughts };
  const cached = readNumber(usage.cachedContentTokenCount);
  if (cached !== undefined && cached > 0) out.cachedInputTokens = cached;
  if (thoughts > 0) out.reasoningTokens = thoughts;
  return out;
}

/** `createTime` (Vertex-style responses) when present, else now, in Unix seconds. */
export function readCreated(response: JsonObject): number {
  const createTime = readString(response.createTime);
  const parsed = createTime !== undefined ? Date.parse(createTime) : Number.NaN;
  return Math.floor((Number.isNaN(parsed) ? Date.now() : parsed) / 1000);
}
