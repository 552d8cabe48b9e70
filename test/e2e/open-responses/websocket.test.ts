/**
 * WebSocket mode of /v1/responses: one persistent socket, `response.create` events in, the same
 * streaming events as SSE out (each validated against its Open Responses schema, each turn
 * against the streaming state machine), through the same call pipeline: the key on the upgrade
 * request, budgets, stored responses, the cost in the final usage, errors as WebSocketErrorEvent
 * with the socket left open. Clients: the `ws` package and the official openai SDK's ResponsesWS.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import WebSocket from 'ws';
import { openResponsesValidator } from '../../helpers/openapi.js';
import { cell, useTextGateway, type TextHarness } from '../text/support/harness.js';
import { eventOrderViolations } from './support/event-order.js';
import { streamEventViolations } from './support/sse-events.js';

type Event = { type: string; [key: string]: unknown };
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/** A connected socket that queues what the server sends. */
interface Session { ws: WebSocket; next(): Promise<Event>; turn(event: Record<string, unknown>): Promise<Event[]> }

async function connect(h: TextHarness, key = h.gw.key): Promise<Session> {
  const ws = new WebSocket(`${h.gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } });
  const queue: Event[] = [];
  const waiting: Array<(e: Event) => void> = [];
  ws.on('message', (data) => {
    const event = JSON.parse(String(data)) as Event;
    const waiter = waiting.shift();
    if (waiter) waiter(event);
    else queue.push(event);
  });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  const next = (): Promise<Event> => {
    const queued = queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within 10 s')), 10_000);
      waiting.push((e) => { clearTimeout(timer); resolve(e); });
    });
  };
  const turn = async (event: Record<string, unknown>): Promise<Event[]> => {
    ws.send(JSON.stringify(event));
    const events: Event[] = [];
    for (;;) {
      const e = await next();
      events.push(e);
      if (TERMINAL.has(e.type) || (e.type === 'error' && 'status' in e)) return events;
    }
  };
  return { ws, next, turn };
}

/** Every schema and state-machine violation of one turn's events. */
function violations(events: Event[]): string[] {
  return [...events.flatMap((e) => streamEventViolations(e)), ...eventOrderViolations(events.map((data) => ({ event: '', data })))];
}

/** The refusal status of an upgrade. */
function upgradeStatus(h: TextHarness, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(`${h.gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers });
  ws.on('error', () => undefined);
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume(); });
    ws.once('open', () => { resolve(101); ws.close(); });
  });
}

describe('WebSocket mode of /v1/responses', () => {
  const h = useTextGateway();
  const sessions: WebSocket[] = [];
  afterEach(() => { for (const ws of sessions.splice(0)) ws.close(); });
  const open = async (key?: string): Promise<Session> => {
    const s = await connect(h, key);
    sessions.push(s.ws);
    return s;
  };

  cell(h, 'runs several turns on one socket (sandbox): schema-valid events in state-machine order, stored responses chain, the cost in usage', async () => {
    const s = await open();
    const first = await s.turn({ type: 'response.create', model: 'sandbox/echo-1', input: 'Remember this code word: papaya.' });
    expect(violations(first)).to.deep.equal([]);
    const done = first.at(-1)! as unknown as { type: string; response: { id: string; status: string; usage: { cost?: number } } };
    expect(done.type).to.equal('response.completed');
    expect(openResponsesValidator('ResponseResource')(done.response)).to.deep.equal([]);
    expect(done.response.usage.cost, 'usage.cost').to.be.a('number');
    const second = await s.turn({ type: 'response.create', model: 'sandbox/echo-1', previous_response_id: done.response.id, input: 'What was the code word?' });
    expect(violations(second)).to.deep.equal([]);
    const chained = second.at(-1)! as unknown as { response: { status: string; previous_response_id: string | null } };
    expect(chained.response.status).to.equal('completed');
    expect(chained.response.previous_response_id).to.equal(done.response.id);
  });

  cell(h, 'serves a translated model (Anthropic upstream): tool call events over the socket, the upstream request valid', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'tool-call' });
    const s = await open();
    const events = await s.turn({
      type: 'response.create', model: 'anthropic/claude-sonnet-5-5', input: "What's the weather like in San Francisco?",
      tools: [{ type: 'function', name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    });
    expect(violations(events)).to.deep.equal([]);
    expect(events.map((e) => e.type)).to.include.members(['response.function_call_arguments.delta', 'response.function_call_arguments.done']);
    expect(h.fakes.anthropic.requests).to.have.length(1);
    expect(h.fakes.anthropic.last().body.stream).to.equal(true);
  });

  cell(h, 'answers a bad event with a WebSocketErrorEvent and keeps the socket open', async () => {
    const s = await open();
    const check = (e: Event, status: number, code: string): void => {
      expect(openResponsesValidator('WebSocketErrorEvent')(e)).to.deep.equal([]);
      expect({ status: e.status, code: (e.error as { code: string }).code }).to.deep.equal({ status, code });
    };
    s.ws.send('not json');
    check(await s.next(), 400, 'malformed_json');
    check((await s.turn({ type: 'session.update' })).at(-1)!, 400, 'unknown_event_type');
    check((await s.turn({ type: 'response.create', model: 'sandbox/echo-1', input: 'hi', stream: true })).at(-1)!, 400, 'unsupported_parameter');
    // Refusals of the pipeline itself: an unknown model, a budget too small for the call.
    check((await s.turn({ type: 'response.create', model: 'nobody/none', input: 'hi' })).at(-1)!, 400, 'model_not_found');
    const budget = (await s.turn({ type: 'response.create', model: 'openai/gpt-4.1-mini', input: 'hi '.repeat(2000), max_budget_usd: 0.0000001 })).at(-1)!;
    check(budget, 400, 'budget_exceeded');
    expect(h.fakes.chat.requests, 'a refused call reaches no upstream').to.have.length(0);
    const after = await s.turn({ type: 'response.create', model: 'sandbox/echo-1', input: 'still there?' });
    expect(after.at(-1)!.type).to.equal('response.completed');
  });

  cell(h, 'runs one turn at a time: a second response.create while one streams is refused with 409', async () => {
    h.fakes.chat.enqueue({ fixture: 'text', eventDelayMs: 60 });
    const s = await open();
    s.ws.send(JSON.stringify({ type: 'response.create', model: 'openai/gpt-4.1-mini', input: 'slow one' }));
    s.ws.send(JSON.stringify({ type: 'response.create', model: 'sandbox/echo-1', input: 'too early' }));
    const events: Event[] = [];
    while (!TERMINAL.has(events.at(-1)?.type ?? '')) events.push(await s.next());
    const refusal = events.find((e) => e.type === 'error');
    expect(refusal?.status).to.equal(409);
    expect((refusal?.error as { code: string }).code).to.equal('response_already_in_flight');
    expect(violations(events.filter((e) => e !== refusal))).to.deep.equal([]);
  });

  cell(h, 'closing the socket mid-turn cancels the upstream call', async () => {
    h.fakes.chat.enqueue({ fixture: 'text', eventDelayMs: 200 });
    const s = await open();
    s.ws.send(JSON.stringify({ type: 'response.create', model: 'openai/gpt-4.1-mini', input: 'a long answer' }));
    while ((await s.next()).type !== 'response.output_text.delta');
    s.ws.close();
    expect(await h.fakes.chat.last().closed).to.equal('aborted');
  });

  cell(h, 'checks the key on the upgrade request: none or an unknown one is a 401, no socket', async () => {
    expect(await upgradeStatus(h, {})).to.equal(401);
    expect(await upgradeStatus(h, { authorization: 'Bearer not-a-key' })).to.equal(401);
    expect(await upgradeStatus(h, { 'x-api-key': h.gw.key })).to.equal(101);
  });

  cell(h, 'works with the official openai SDK (ResponsesWS)', async () => {
    const client = new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key });
    const rws = new ResponsesWS(client);
    try {
      const types: string[] = [];
      const final = await new Promise<{ status: string; output_text?: string; output: unknown[] }>((resolve, reject) => {
        rws.on('event', (event) => types.push(event.type));
        rws.on('response.completed', (event) => resolve(event.response as never));
        rws.on('error', reject);
        rws.send({ type: 'response.create', model: 'sandbox/echo-1', input: 'Say hello.' } as never);
      });
      expect(final.status).to.equal('completed');
      expect(final.output.length).to.be.greaterThan(0);
      expect(types[0]).to.equal('response.created');
      expect(types).to.include('response.output_text.delta');
    } finally {
      rws.close();
    }
  });
});
