/**
 * What the fake Bedrock runtime answers, decided from the request like a well-behaved model:
 * with tools offered and no tool result yet, it calls the first tool (`{"city":"Oslo"}`); after a
 * tool result, or without tools, it answers text; asked to reason, it reasons first (with a
 * signature). The same answer is written as a Converse body, ConverseStream events, a Claude
 * Messages body and Claude's stream events.
 */
import { claudeBreakpoints, converseCachePoints } from './cache-points.js';
import { chunkMessage, eventMessage } from './event-stream-frames.js';

/** Tokens a request with prompt-cache breakpoints writes to the cache (the first time, as the fake has no memory). */
export const CACHE_WRITE_TOKENS = 1500;

/** One answer, independent of its wire format. */
export interface Answer {
  reasoning?: { text: string; signature: string };
  text?: string;
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
  stopReason: 'end_turn' | 'tool_use';
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheWriteInputTokens: number;
}

type Json = Record<string, unknown>;
const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

function decide(model: string, toolNames: string[], lastUserHasResult: boolean, reasoning: boolean, seq: number, breakpoints: number): Answer {
  const answer: Answer = { stopReason: 'end_turn', inputTokens: 21, outputTokens: 9, cacheReadInputTokens: 4, cacheWriteInputTokens: breakpoints > 0 ? CACHE_WRITE_TOKENS : 0 };
  if (reasoning) answer.reasoning = { text: 'The user wants the weather; I should check.', signature: `sig-${seq}` };
  if (toolNames.length > 0 && !lastUserHasResult) {
    answer.toolUse = { id: `tooluse_${seq}`, name: toolNames[0]!, input: { city: 'Oslo' } };
    answer.stopReason = 'tool_use';
  } else answer.text = lastUserHasResult ? 'It is 4 degrees in Oslo.' : `Hello from ${model}.`;
  return answer;
}

/** The answer to a Converse request. */
export function answerConverseRequest(body: Json, model: string, seq: number): Answer {
  const tools = asList((body.toolConfig as Json | undefined)?.tools).map((t) => String((t.toolSpec as Json | undefined)?.name));
  const last = asList(body.messages).at(-1);
  const hasResult = asList(last?.content).some((b) => b.toolResult !== undefined);
  const thinking = ((body.additionalModelRequestFields as Json | undefined)?.thinking as Json | undefined)?.type === 'enabled';
  return decide(model, tools, hasResult, thinking, seq, converseCachePoints(body, model).at.length);
}

/** The answer to a Claude (InvokeModel) request. */
export function answerClaudeRequest(body: Json, model: string, seq: number): Answer {
  const tools = asList(body.tools).map((t) => String(t.name));
  const last = asList(body.messages).at(-1);
  const hasResult = Array.isArray(last?.content) && asList(last.content).some((b) => b.type === 'tool_result');
  const thinkingType = (body.thinking as Json | undefined)?.type;
  return decide(model, tools, hasResult, thinkingType === 'enabled' || thinkingType === 'adaptive', seq, claudeBreakpoints(body).at.length);
}

/** A Converse response body. */
export function converseBody(a: Answer): Json {
  const content: Json[] = [];
  if (a.reasoning) content.push({ reasoningContent: { reasoningText: { text: a.reasoning.text, signature: a.reasoning.signature } } });
  if (a.text !== undefined) content.push({ text: a.text });
  if (a.toolUse) content.push({ toolUse: { toolUseId: a.toolUse.id, name: a.toolUse.name, input: a.toolUse.input } });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: a.stopReason,
    usage: { inputTokens: a.inputTokens, outputTokens: a.outputTokens, totalTokens: a.inputTokens + a.outputTokens + a.cacheReadInputTokens + a.cacheWriteInputTokens, cacheReadInputTokens: a.cacheReadInputTokens, cacheWriteInputTokens: a.cacheWriteInputTokens },
    metrics: { latencyMs: 120 },
  };
}

/** Splits text in two deltas, as streams do. */
const halves = (s: string) => [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))];

/** ConverseStream event-stream messages (CRC-framed) for an answer. */
export function converseStreamMessages(a: Answer): Buffer[] {
  const out: Buffer[] = [eventMessage('messageStart', { role: 'assistant' })];
  let index = 0;
  if (a.reasoning) {
    for (const text of halves(a.reasoning.text)) out.push(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text } } }));
    out.push(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature: a.reasoning.signature } } }));
    out.push(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
  }
  if (a.text !== undefined) {
    for (const text of halves(a.text)) out.push(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text } }));
    out.push(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
  }
  if (a.toolUse) {
    out.push(eventMessage('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: a.toolUse.id, name: a.toolUse.name } } }));
    for (const input of halves(JSON.stringify(a.toolUse.input))) out.push(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input } } }));
    out.push(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
  }
  out.push(eventMessage('messageStop', { stopReason: a.stopReason }));
  const usage = (converseBody(a) as { usage: Json }).usage;
  out.push(eventMessage('metadata', { usage, metrics: { latencyMs: 150 } }));
  return out;
}

/** A Claude Messages response body (InvokeModel). */
export function claudeBody(a: Answer, model: string, seq: number): Json {
  const content: Json[] = [];
  if (a.reasoning) content.push({ type: 'thinking', thinking: a.reasoning.text, signature: a.reasoning.signature });
  if (a.text !== undefined) content.push({ type: 'text', text: a.text });
  if (a.toolUse) content.push({ type: 'tool_use', id: a.toolUse.id, name: a.toolUse.name, input: a.toolUse.input });
  return {
    id: `msg_bdrk_${seq}`, type: 'message', role: 'assistant', model, content,
    stop_reason: a.stopReason, stop_sequence: null,
    usage: { input_tokens: a.inputTokens, output_tokens: a.outputTokens, cache_read_input_tokens: a.cacheReadInputTokens, cache_creation_input_tokens: a.cacheWriteInputTokens },
  };
}

/** InvokeModelWithResponseStream `chunk` messages carrying Claude's stream events. */
export function claudeStreamMessages(a: Answer, model: string, seq: number): Buffer[] {
  const events: Json[] = [{ type: 'message_start', message: { ...claudeBody({ ...a, reasoning: undefined, text: undefined, toolUse: undefined }, model, seq), content: [], stop_reason: null, usage: { input_tokens: a.inputTokens, output_tokens: 1, cache_read_input_tokens: a.cacheReadInputTokens, cache_creation_input_tokens: a.cacheWriteInputTokens } } }];
  let index = 0;
  if (a.reasoning) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const thinking of halves(a.reasoning.text)) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: a.reasoning.signature } });
    events.push({ type: 'content_block_stop', index: index++ });
  }
  if (a.text !== undefined) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const text of halves(a.text)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index: index++ });
  }
  if (a.toolUse) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: a.toolUse.id, name: a.toolUse.name, input: {} } });
    for (const partial_json of halves(JSON.stringify(a.toolUse.input))) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    events.push({ type: 'content_block_stop', index: index++ });
  }
  events.push({ type: 'message_delta', delta: { stop_reason: a.stopReason, stop_sequence: null }, usage: { output_tokens: a.outputTokens } });
  events.push({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: a.inputTokens, outputTokenCount: a.outputTokens, invocationLatency: 150, firstByteLatency: 40 } });
  return events.map((e) => chunkMessage(e));
}
