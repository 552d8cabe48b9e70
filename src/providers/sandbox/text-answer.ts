import type {
  Conversation, FinishReason, ImageSource, InternalResponse, Message, Part, ToolCallPart, ToolDefinition, ToolResultPart, Usage,
} from '../../codecs/internal.js';
import { errors } from '../../errors/gateway-error.js';
import { deriveId, signText } from './hash.js';
import { buildSchemaValue, createValueSource } from './schema-values.js';
import { countTokens, truncateToTokens } from './token-estimate.js';

/**
 * The sandbox's deterministic assistant (same conversation -> same answer):
 * - tools offered, tool choice not `none`, last turn a user turn -> call tool(s) with arguments
 *   built from their JSON schemas and the user's words (finish `tool_calls`);
 * - last turn holds tool results -> a text summarizing them;
 * - otherwise -> `Echo: <last user text>` with a description of each image and file received.
 * Reasoning requests get a signed thinking part first. `maxOutputTokens` and `stop` are honoured.
 */

/** Tokens counted for each image of the prompt (a flat, documented sandbox price). */
export const IMAGE_INPUT_TOKENS = 85;

/** The complete sandbox answer to a conversation. */
export function composeAnswer(request: Conversation): InternalResponse {
  const last = request.messages.at(-1);
  const hasToolResults = last !== undefined && (last.role === 'tool' || last.parts.some((p) => p.type === 'tool_result'));
  const wantsTool = !hasToolResults && last?.role === 'user' && (request.tools?.length ?? 0) > 0 && request.toolChoice?.type !== 'none';
  const userText = readUserText(request.messages);

  const toolCalls = wantsTool ? planToolCalls(request, userText) : [];
  let answer = '';
  if (!wantsTool) {
    answer = hasToolResults ? summarizeToolResults(last, request.messages) : echoUser(request.messages, userText);
    answer = shapeAnswer(answer, userText, request);
  }

  const content: Part[] = [];
  let budget = request.maxOutputTokens ?? Infinity;
  let finishReason: FinishReason = wantsTool ? 'tool_calls' : 'stop';
  let stopSequence: string | undefined;
  let reasoningTokens = 0;

  if (request.reasoning && request.reasoning.effort !== 'none') {
    let thinking = composeThinking(wantsTool ? 'tool' : hasToolResults ? 'summarize' : 'echo', userText, toolCalls.map((c) => c.name));
    const cut = truncateToTokens(thinking, budget);
    if (cut.truncated) { thinking = cut.text; finishReason = 'length'; }
    reasoningTokens = countTokens(thinking);
    budget -= reasoningTokens;
    content.push({ type: 'thinking', text: thinking, signature: signText(thinking) });
  }

  if (finishReason !== 'length') {
    if (wantsTool) {
      content.push(...toolCalls);
    } else {
      const stop = findStop(answer, request.stop);
      if (stop) { answer = answer.slice(0, stop.index); finishReason = 'stop_sequence'; stopSequence = stop.sequence; }
      const cut = truncateToTokens(answer, budget);
      if (cut.truncated) { answer = cut.text; finishReason = 'length'; stopSequence = undefined; }
      if (answer.length > 0) content.push({ type: 'text', text: answer });
    }
  }

  const usage: Usage = { inputTokens: countConversationTokens(request), outputTokens: countOutputTokens(content) };
  if (reasoningTokens > 0) usage.reasoningTokens = reasoningTokens;
  const response: InternalResponse = {
    id: deriveId('sbx-', fingerprintConversation(request)),
    model: request.model,
    created: Math.floor(Date.now() / 1000),
    content,
    finishReason,
    usage,
  };
  if (stopSequence !== undefined) response.stopSequence = stopSequence;
  return response;
}

/** Tokens of the prompt: system texts and every message part (images and files count IMAGE_INPUT_TOKENS each). */
export function countConversationTokens(request: Conversation): number {
  let total = 0;
  for (const text of request.system) total += countTokens(text);
  for (const message of request.messages) total += countPartsTokens(message.parts);
  return total;
}

function countPartsTokens(parts: readonly Part[]): number {
  let total = 0;
  for (const part of parts) {
    switch (part.type) {
      case 'text': case 'thinking': total += countTokens(part.text); break;
      case 'image': case 'file': total += IMAGE_INPUT_TOKENS; break;
      case 'tool_call': total += countTokens(part.name) + countTokens(part.arguments); break;
      case 'tool_result': total += typeof part.content === 'string' ? countTokens(part.content) : countPartsTokens(part.content); break;
      case 'redacted_thinking': total += Math.ceil(part.data.length / 16); break;
    }
  }
  return total;
}

function countOutputTokens(content: readonly Part[]): number {
  return countPartsTokens(content);
}

/** The request fields that decide the answer (not `stream`), as a stable string. */
function fingerprintConversation(request: Conversation): string {
  const { stream: _stream, includeUsage: _usage, user: _user, metadata: _meta, ...rest } = request;
  return JSON.stringify(rest);
}

function readUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user' || message.parts.every((p) => p.type === 'tool_result')) continue;
    return message.parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  }
  return '';
}

/** Describes an image the way the sandbox "sees" it. */
export function describeImage(source: ImageSource): string {
  if (source.kind === 'file') return `[image: file ${source.fileId}]`;
  if (source.kind === 'base64') return `[image: base64 ${source.mediaType} ${Buffer.from(source.data, 'base64').length} bytes]`;
  const data = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(source.url);
  if (data) {
    const bytes = data[2] ? Buffer.from(data[3]!, 'base64').length : Buffer.from(decodeURIComponent(data[3]!)).length;
    return `[image: base64 ${data[1] || 'application/octet-stream'} ${bytes} bytes]`;
  }
  return `[image: ${source.url}]`;
}

/** Describes an attached file the way the sandbox "sees" it (its name, type and size). */
function describeFile(filename: string | undefined, source: ImageSource): string {
  const name = filename ?? 'file';
  if (source.kind === 'base64') return `[file: ${name} ${source.mediaType} ${Buffer.from(source.data, 'base64').length} bytes]`;
  return `[file: ${name} ${source.kind === 'url' ? source.url : source.fileId}]`;
}

function echoUser(messages: readonly Message[], userText: string): string {
  let images: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user' || message.parts.every((p) => p.type === 'tool_result')) continue;
    images = message.parts.flatMap((p) => (p.type === 'image' ? [describeImage(p.source)] : p.type === 'file' ? [describeFile(p.filename, p.source)] : []));
    break;
  }
  const said = [userText.trim(), ...images].filter((s) => s.length > 0).join(' ');
  return `Echo: ${said.length > 0 ? said : '(no text)'}`;
}

function summarizeToolResults(last: Message, messages: readonly Message[]): string {
  const results = last.parts.filter((p): p is ToolResultPart => p.type === 'tool_result');
  if (results.length === 0) return 'No tool results were received.';
  const names = new Map<string, string>();
  for (const message of messages) for (const part of message.parts) if (part.type === 'tool_call') names.set(part.id, part.name);
  return results.map((result) => {
    const name = result.name ?? names.get(result.toolCallId) ?? result.toolCallId;
    const text = typeof result.content === 'string'
      ? result.content
      : result.content.map((p) => (p.type === 'text' ? p.text : describeImage(p.source))).join(' ');
    return `Tool ${name} ${result.isError ? 'failed' : 'returned'}: ${text}`;
  }).join('\n');
}

/** JSON answers when the client asked for JSON (`response_format`), else the text itself. */
function shapeAnswer(answer: string, userText: string, request: Conversation): string {
  const format = request.responseFormat;
  if (format?.type === 'json_object') return JSON.stringify({ answer });
  if (format?.type === 'json_schema') return JSON.stringify(buildSchemaValue(format.schema, createValueSource(userText)));
  return answer;
}

function composeThinking(mode: 'tool' | 'summarize' | 'echo', userText: string, toolNames: string[]): string {
  const said = userText.trim().replace(/\s+/g, ' ');
  const quoted = said.length > 80 ? `${said.slice(0, 80)}...` : said;
  if (mode === 'tool') return `The user asked: "${quoted}". The best next step is to call ${toolNames.join(' and ')}.`;
  if (mode === 'summarize') return 'The tool results are in. I will report them to the user.';
  return `The user said: "${quoted}". I will echo it back.`;
}

function findStop(text: string, stops: readonly string[] | undefined): { index: number; sequence: string } | undefined {
  let best: { index: number; sequence: string } | undefined;
  for (const sequence of stops ?? []) {
    if (sequence.length === 0) continue;
    const index = text.indexOf(sequence);
    if (index >= 0 && (best === undefined || index < best.index)) best = { index, sequence };
  }
  return best;
}

/** Whether the text names a tool ("get_weather", or "get weather"). */
function mentionsTool(lowerText: string, tool: ToolDefinition): boolean {
  const name = tool.name.toLowerCase();
  return lowerText.includes(name) || lowerText.includes(name.replace(/[_\-.]+/g, ' '));
}

function planToolCalls(request: Conversation, userText: string): ToolCallPart[] {
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  let chosen: ToolDefinition[];
  if (choice?.type === 'tool') {
    const named = tools.find((t) => t.name === choice.name);
    if (!named) throw errors.invalidRequest(`tool_choice names '${choice.name}', which is not among the tools.`, 'unknown_tool', { tool: choice.name });
    chosen = [named];
  } else {
    const lower = userText.toLowerCase();
    const mentioned = tools.filter((t) => mentionsTool(lower, t));
    if (request.parallelToolCalls !== false && tools.length > 1 && mentioned.length > 1) chosen = mentioned;
    else chosen = [mentioned[0] ?? tools[0]!];
  }
  const toolNames = tools.map((t) => t.name);
  const shared = createValueSource(userText, toolNames);
  const segments = chosen.length > 1 ? splitByMentions(userText, chosen) : [];
  const fingerprint = fingerprintConversation(request);
  return chosen.map((tool, index) => {
    // With several calls, each takes its words from the text after its own mention
    // ("get_weather for Paris and get_time for Tokyo"); a single call reads the whole text.
    const own = segments[index] ? createValueSource(segments[index], toolNames) : undefined;
    const source = own && own.words[0] !== 'sandbox' ? own : shared;
    return {
      type: 'tool_call',
      id: deriveId('call_', fingerprint, String(index)),
      name: tool.name,
      arguments: JSON.stringify(buildToolArguments(tool, source)),
    };
  });
}

/** For each tool, the text from its mention to the next tool's mention. */
function splitByMentions(text: string, tools: readonly ToolDefinition[]): string[] {
  const lower = text.toLowerCase();
  const positions = tools.map((tool) => {
    const name = tool.name.toLowerCase();
    const direct = lower.indexOf(name);
    return direct >= 0 ? direct : lower.indexOf(name.replace(/[_\-.]+/g, ' '));
  });
  const sorted = [...positions].sort((a, b) => a - b);
  return positions.map((start) => {
    if (start < 0) return '';
    const next = sorted.find((p) => p > start);
    return text.slice(start, next ?? text.length);
  });
}

/** Tool arguments are always a JSON object, even when the schema is loose. */
function buildToolArguments(tool: ToolDefinition, source: ReturnType<typeof createValueSource>): Record<string, unknown> {
  const schema = tool.parameters.type === undefined ? { type: 'object', ...tool.parameters } : tool.parameters;
  const value = buildSchemaValue(schema, source);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
