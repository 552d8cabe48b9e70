/**
 * The official-SDK matrix of issue 3: {openai chat.completions, openai responses, anthropic
 * messages} x {openai-chat, anthropic-messages, gemini, openai-responses upstream dialects} x
 * {plain, streamed} x {text, tool-call round trip, image input}, generated from the tables below.
 * Each cell asserts on what the SDK parsed and on what the fake upstream received.
 */
import { expect } from 'chai';
import type { ClientDriver, Outcome } from './support/client-driver.js';
import { chatDriver } from './support/chat-client.js';
import { dialectView, kitCell as cell, useKitGateway } from '../../kit/routing-gateway.js';
import { messagesDriver } from './support/messages-client.js';
import { responsesDriver } from './support/responses-client.js';
import {
  ANSWERS, DIALECT_MODELS, FIXTURE_USAGE, IMAGE_URL, PNG_BASE64, SYSTEM_PROMPT, TOOL_ARGUMENTS, TOOL_RESULT, UPSTREAM_CALL_IDS, WEATHER_TOOL,
} from './support/scenario.js';
import { upstreamViews } from './support/upstream-views.js';
import type { TestGateway } from '../../helpers/gateway.js';

const CLIENTS: Array<(gw: TestGateway) => ClientDriver> = [chatDriver, responsesDriver, messagesDriver];
const CLIENT_NAMES = ['openai SDK chat.completions', 'openai SDK responses', 'anthropic SDK messages'];
const MODES = [{ name: 'plain', streamed: false }, { name: 'streamed', streamed: true }];

type Fixture = keyof typeof FIXTURE_USAGE;

/** Reasoning tokens the dialect's wire reports for a fixture (undefined: the format has no count). */
function reportedReasoning(dialect: string, fixture: Fixture): number | undefined {
  if (dialect === 'anthropic-messages') return undefined;
  if (dialect === 'openai-chat') return 0; // gpt-4.1-mini does not reason
  return FIXTURE_USAGE[fixture].reasoning;
}

function expectUsage(out: Outcome, fixture: Fixture, driver: ClientDriver, dialect: string): void {
  const expected = FIXTURE_USAGE[fixture];
  expect(out.usage.input, 'input tokens (cached included)').to.equal(expected.input);
  expect(out.usage.output, 'output tokens').to.equal(expected.output);
  expect(out.usage.cached ?? 0, 'cached input tokens').to.equal(expected.cached);
  const reasoning = reportedReasoning(dialect, fixture);
  if (driver.reportsReasoning && reasoning !== undefined) expect(out.usage.reasoning ?? 0, 'reasoning tokens').to.equal(reasoning);
}

describe('text surfaces x upstream dialects (official SDKs)', () => {
  const h = useKitGateway();
  const drivers = new Map<string, ClientDriver>();
  const driverOf = (i: number): ClientDriver => {
    const name = CLIENT_NAMES[i]!;
    if (!drivers.has(name)) drivers.set(name, CLIENTS[i]!(h.gw));
    return drivers.get(name)!;
  };

  CLIENT_NAMES.forEach((clientName, clientIndex) => {
    describe(clientName, () => {
      for (const { dialect, model, upstream } of DIALECT_MODELS) {
        describe(`-> ${dialect} (${model})`, () => {
          const view = upstreamViews[dialect]!;
          const fake = () => dialectView(h.kit, dialect);

          for (const { name: mode, streamed } of MODES) {
            cell(h, `answers text (${mode})`, async () => {
              const driver = driverOf(clientIndex);
              fake().enqueue({ fixture: 'text' });
              const out = await driver.askText(model, streamed);
              expect(out.text).to.equal(ANSWERS.text);
              expect(out.toolCalls).to.deep.equal([]);
              expect(out.stop).to.equal(driver.stops.end);
              expectUsage(out, 'text', driver, dialect);
              expect(fake().requests).to.have.length(1);
              const req = fake().last();
              expect(view.model(req), 'upstream model name').to.equal(upstream);
              expect(req.stream, 'upstream stream flag').to.equal(streamed);
              if (streamed) expect(view.asksStreamUsage(req), 'stream usage asked of the upstream').to.equal(true);
              expect(view.system(req), 'system prompt in the upstream format').to.include(SYSTEM_PROMPT);
            });

            cell(h, `round-trips a tool call (${mode})`, async () => {
              const driver = driverOf(clientIndex);
              fake().enqueue({ fixture: 'tool-call' }, { fixture: 'tool-final' });
              const turn = await driver.askTool(model, streamed);
              expect(turn.first.toolCalls, 'tool calls parsed by the SDK').to.have.length(1);
              const call = turn.first.toolCalls[0]!;
              expect(call.name).to.equal(WEATHER_TOOL.name);
              expect(call.arguments, 'parsed arguments').to.deep.equal(TOOL_ARGUMENTS);
              expect(call.id).to.be.a('string').and.not.equal('');
              expect(turn.first.stop).to.equal(driver.stops.tool);
              expectUsage(turn.first, 'tool-call', driver, dialect);
              expect(view.toolNames(fake().requests[0]!)).to.deep.equal([WEATHER_TOOL.name]);

              const second = await turn.answer(TOOL_RESULT);
              expect(second.text).to.equal(ANSWERS.toolFinal);
              expect(second.stop).to.equal(driver.stops.end);
              expectUsage(second, 'tool-final', driver, dialect);
              expect(fake().requests).to.have.length(2);
              const req = fake().requests[1]!;
              const results = view.toolResults(req);
              expect(results, 'tool results in the upstream format').to.have.length(1);
              expect(JSON.parse(results[0]!.content)).to.deep.equal(JSON.parse(TOOL_RESULT));
              const prior = view.priorToolCalls(req);
              expect(prior, 'the earlier tool call sent back').to.have.length(1);
              expect(prior[0]!.name).to.equal(WEATHER_TOOL.name);
              expect(prior[0]!.arguments).to.deep.equal(TOOL_ARGUMENTS);
              const upstreamId = UPSTREAM_CALL_IDS[dialect];
              if (upstreamId !== undefined) {
                expect(results[0]!.callId, 'tool result answers the upstream call id').to.equal(upstreamId);
                expect(prior[0]!.id).to.equal(upstreamId);
              } else {
                expect(results[0]!.name, 'Gemini matches results by function name').to.equal(WEATHER_TOOL.name);
              }
            });

            cell(h, `reads image input by URL and base64 (${mode})`, async () => {
              const driver = driverOf(clientIndex);
              fake().enqueue({ fixture: 'image' });
              const out = await driver.askImage(model, streamed);
              expect(out.text).to.equal(ANSWERS.image);
              expect(out.stop).to.equal(driver.stops.end);
              expectUsage(out, 'image', driver, dialect);
              expect(view.images(fake().last()), 'images in the upstream format').to.deep.equal([{ url: IMAGE_URL }, { mediaType: 'image/png', data: PNG_BASE64 }]);
            });
          }
        });
      }
    });
  });
});
