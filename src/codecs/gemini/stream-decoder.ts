import type { SseFrame, StreamDecoder } from '../codec.js';
import type { Conversation, FinishReason, StreamEvent, Usage } from '../internal.js';
import { makeRandomSuffix } from '../openai-responses/ids.js';
import { upstreamStreamError } from '../../errors/upstream-failure.js';
import { asArray, asObject, readString, isRecord, parseJson, type JsonObject } from '../shared/json.js';
import { malformedFrameError, truncatedStreamError } from '../shared/stream-end.js';
import { decodeGoogleErrorObject } from './error-decode.js';
import { decodeBlockedPrompt, decodeCandidateParts, decodeFinishReason, decodeGeminiUsage, readCreated } from './response-decode.js';

/**
 * Gemini `streamGenerateContent?alt=sse` -> internal stream events. Each `data:` chunk is a whole
 * GenerateContentResponse holding the next parts: text and thought text stream as deltas of a
 * text / thinking block, and a functionCall arrives whole (block_start with its signature, one
 * arguments delta, block_stop). The last chunk carries finishReason and the final usageMetadata;
 * the stream just ends (no [DONE]). A `{error:{...}}` chunk is an in-band failure.
 * Stream-end rule: the terminal event is the chunk whose candidate carries a finishReason (or a
 * promptFeedback.blockReason); a stream that ends without it, or a chunk that is not JSON, ends
 * with an internal error event.
 */
export class GeminiStreamDecoder implements StreamDecoder {
  private started = false;
  private ended = false;
  private finishSent = false;
  private responseId = '';
  private nextIndex = 0;
  private calls = 0;
  private open: { index: number; kind: 'text' | 'thinking' } | undefined;
  private usage: Usage | undefined;

  constructor(private readonly request: Conversation) {}

  decode(frame: SseFrame): StreamEvent[] {
    if (this.ended) return [];
    if (frame.data.trim() === '') return [];
    const chunk = parseJson(frame.data);
    // Without alt=sse Gemini would stream one JSON array; tolerate a chunk wrapped in an array.
    const data = Array.isArray(chunk) ? chunk[0] : chunk;
    if (!isRecord(data)) {
      this.ended = true;
      return [malformedFrameError(frame)];
    }
    if (isRecord(data.error)) {
      this.ended = true;
      const { status, ...info } = decodeGoogleErrorObject(data.error);
      return [upstreamStreamError(status, info)];
    }
    const out: StreamEvent[] = [];
    this.start(data, out);
    const candidate = asObject(asArray(data.candidates)[0]);
    for (const part of decodeCandidateParts(asArray(asObject(candidate.content).parts), this.responseId, this.calls)) {
      if (part.type === 'tool_call') {
        this.closeOpen(out);
        this.calls += 1;
        const index = this.nextIndex++;
        out.push({ type: 'block_start', index, block: { type: 'tool_call', id: part.id, name: part.name, ...(part.signature !== undefined ? { signature: part.signature } : {}) } });
        out.push({ type: 'block_delta', index, delta: { type: 'arguments', partialJson: part.arguments } });
        out.push({ type: 'block_stop', index });
      } else if (part.type === 'text' || part.type === 'thinking') {
        const index = this.openBlock(part.type, out);
        if (part.text.length > 0) out.push({ type: 'block_delta', index, delta: part.type === 'text' ? { type: 'text', text: part.text } : { type: 'thinking', text: part.text } });
        if (part.type === 'thinking' && part.signature !== undefined) out.push({ type: 'block_delta', index, delta: { type: 'signature', signature: part.signature } });
      }
    }
    if (data.usageMetadata !== undefined) this.usage = decodeGeminiUsage(data.usageMetadata);
    const reason = readString(candidate.finishReason);
    if (reason !== undefined) this.finish(decodeFinishReason(reason, this.calls > 0), out);
    else if (asArray(data.candidates).length === 0 && asObject(data.promptFeedback).blockReason !== undefined) this.finish(decodeBlockedPrompt(data), out);
    return out;
  }

  end(): StreamEvent[] {
    if (this.ended) return [];
    this.ended = true;
    if (!this.finishSent) return [truncatedStreamError('a candidate with a finishReason')];
    return [{ type: 'usage', usage: this.usage ?? { inputTokens: 0, outputTokens: 0 } }];
  }

  private start(data: JsonObject, out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    this.responseId = readString(data.responseId) ?? `gemini_${makeRandomSuffix()}`;
    out.push({ type: 'start', id: this.responseId, model: readString(data.modelVersion) ?? this.request.model, created: readCreated(data) });
  }

  /** The index of the open block of `kind`, closing a block of the other kind first. */
  private openBlock(kind: 'text' | 'thinking', out: StreamEvent[]): number {
    if (this.open !== undefined && this.open.kind === kind) return this.open.index;
    this.closeOpen(out);
    const index = this.nextIndex++;
    this.open = { index, kind };
    out.push({ type: 'block_start', index, block: { type: kind } });
    return index;
  }

  private closeOpen(out: StreamEvent[]): void {
    if (this.open === undefined) return;
    out.push({ type: 'block_stop', index: this.open.index });
    this.open = undefined;
  }

  private finish(reason: FinishReason, out: StreamEvent[]): void {
    this.closeOpen(out);
    if (this.finishSent) return;
    this.finishSent = true;
    out.push({ type: 'finish', finishReason: reason });
  }
}
