/**
 * The acceptance suite's SSE reading (openresponses/openresponses `src/lib/sse-parser.ts`),
 * ported: `event:` and `data:` lines, multi-line data joined, an event dispatched on a blank
 * line or at the end of the body, `[DONE]` skipped. Every event is validated against its Open
 * Responses schema (ajv over the vendored OpenAPI document instead of the suite's generated zod
 * schemas); the final response is the one of response.completed / failed / incomplete.
 */
import { openResponsesStreamEventValidator } from '../../../helpers/openapi.js';

/** One parsed server-sent event. */
export interface ParsedEvent {
  /** The SSE `event:` field ('' when absent). */
  event: string;
  data: { type?: string; [key: string]: unknown };
}

/** What a stream said: its events, every schema violation, the terminal response, whether `[DONE]` came. */
export interface SseParseResult {
  events: ParsedEvent[];
  errors: string[];
  finalResponse: unknown;
  sawDone: boolean;
}

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/** Validates one event against the schema its `type` names (an unknown type is a violation). */
export function streamEventViolations(data: { type?: unknown }): string[] {
  let validate: (body: unknown) => string[];
  try {
    validate = openResponsesStreamEventValidator(String(data.type));
  } catch {
    return [`Event type ${String(data.type)} is not an Open Responses streaming event`];
  }
  return validate(data).map((v) => `Event validation failed for ${String(data.type)}: ${v}`);
}

/** Parses a whole `text/event-stream` body. */
export function parseSseText(text: string): SseParseResult {
  const result: SseParseResult = { events: [], errors: [], finalResponse: null, sawDone: false };
  let event = '';
  let data: string[] = [];
  const dispatch = (): void => {
    const joined = data.join('\n');
    if (joined === '[DONE]') result.sawDone = true;
    else if (data.length > 0) {
      try {
        const parsed = JSON.parse(joined) as ParsedEvent['data'];
        result.events.push({ event, data: parsed });
        result.errors.push(...streamEventViolations(parsed));
        if (TERMINAL.has(String(parsed.type))) result.finalResponse = parsed.response;
      } catch {
        result.errors.push(`Failed to parse event data: ${joined}`);
      }
    }
    event = '';
    data = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (line === '') dispatch();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  dispatch();
  return result;
}
