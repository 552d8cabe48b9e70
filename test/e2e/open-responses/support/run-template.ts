/**
 * Runs one ported acceptance-suite template against a gateway the way the suite's runner does
 * (`fetch` to `<base>/responses` with `Authorization: Bearer`, the body plus `stream`), then
 * checks what came back: the response object against the Open Responses `ResponseResource`
 * schema (the suite parses it with its generated zod schema), each stream event against its
 * schema and the whole stream against the streaming state machine, then the template's
 * validators. Returns every error; an empty list is a pass.
 */
import { openResponsesValidator } from '../../../helpers/openapi.js';
import type { ResponseResource, TestTemplate, ValidatorContext } from './compliance-templates.js';
import { eventOrderViolations } from './event-order.js';
import { parseSseText, type SseParseResult } from './sse-events.js';

/** Where the suite sends its requests. */
export interface SuiteConfig { baseUrl: string; apiKey: string; model: string }

/** One template's outcome: its errors and what it saw. */
export interface TemplateResult { errors: string[]; responses: unknown[]; streamEvents?: number }

type Parsed = { ok: true; response: ResponseResource; sse?: SseParseResult } | { ok: false; errors: string[]; response?: unknown };

async function makeRequest(config: SuiteConfig, body: Record<string, unknown>, streaming: boolean): Promise<Response> {
  return fetch(`${config.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.apiKey}` },
    body: JSON.stringify({ ...body, stream: streaming }),
  });
}

async function parseResponse(response: Response, streaming: boolean): Promise<Parsed> {
  if (!response.ok) return { ok: false, errors: [`HTTP ${response.status}: ${await response.text()}`] };
  let raw: unknown;
  let sse: SseParseResult | undefined;
  if (streaming) {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) return { ok: false, errors: [`a stream must be text/event-stream, got '${type}'`] };
    sse = parseSseText(await response.text());
    raw = sse.finalResponse;
  } else {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) return { ok: false, errors: [`a response must be application/json, got '${type}'`] };
    raw = await response.json();
  }
  const violations = openResponsesValidator('ResponseResource')(raw).map((v) => `ResponseResource${v}`);
  if (violations.length > 0) return { ok: false, errors: violations, response: raw };
  return { ok: true, response: raw as ResponseResource, ...(sse ? { sse } : {}) };
}

/** Runs `template` against the gateway in `config`. */
export async function runTemplate(template: TestTemplate, config: SuiteConfig): Promise<TemplateResult> {
  if (template.turns) {
    const first = await parseResponse(await makeRequest(config, template.turns.first(config.model), false), false);
    if (!first.ok) return { errors: first.errors, responses: [first.response] };
    const body = template.turns.second(config.model, first.response);
    if (typeof body === 'string') return { errors: [body], responses: [first.response] };
    const second = await parseResponse(await makeRequest(config, body, false), false);
    if (!second.ok) return { errors: second.errors, responses: [first.response, second.response] };
    return { errors: template.validators.flatMap((v) => v(second.response, { streaming: false })), responses: [first.response, second.response] };
  }
  const streaming = template.streaming ?? false;
  const parsed = await parseResponse(await makeRequest(config, template.getRequest!(config.model), streaming), streaming);
  if (!parsed.ok) return { errors: parsed.errors, responses: [parsed.response] };
  const context: ValidatorContext = { streaming, ...(parsed.sse ? { sseResult: parsed.sse } : {}) };
  const errors = template.validators.flatMap((v) => v(parsed.response, context));
  if (parsed.sse) errors.push(...eventOrderViolations(parsed.sse.events));
  return { errors, responses: [parsed.response], ...(parsed.sse ? { streamEvents: parsed.sse.events.length } : {}) };
}
