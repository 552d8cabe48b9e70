/**
 * The text cells every cloud suite runs: each official client (openai chat.completions,
 * openai responses, anthropic messages) x plain / streamed x {text, tool round trip}, against
 * one catalog model whose fake answers with the kit's fixtures.
 */
import { expect } from 'chai';
import type { TestGateway } from '../../../helpers/gateway.js';
import type { Fault } from '../../../kit/fake-upstream.js';
import { chatDriver } from '../../text/support/chat-client.js';
import type { ClientDriver } from '../../text/support/client-driver.js';
import { messagesDriver } from '../../text/support/messages-client.js';
import { responsesDriver } from '../../text/support/responses-client.js';
import { ANSWERS, TOOL_ARGUMENTS, TOOL_RESULT, WEATHER_TOOL } from '../../text/support/scenario.js';

export const DRIVERS: ReadonlyArray<(gw: TestGateway) => ClientDriver> = [chatDriver, responsesDriver, messagesDriver];
export const DRIVER_NAMES = ['openai SDK chat.completions', 'openai SDK responses', 'anthropic SDK messages'];

/**
 * Registers the cells for `model`. `enqueue` scripts the fake's next answers; `after` runs after
 * each cell (the checks that no request was refused).
 */
export function textCells(gw: () => TestGateway, model: string, enqueue: (...faults: Fault[]) => void, after: () => void): void {
  DRIVER_NAMES.forEach((name, i) => {
    describe(name, () => {
      for (const streamed of [false, true]) {
        const mode = streamed ? 'streamed' : 'plain';
        it(`answers text (${mode})`, async () => {
          enqueue({ fixture: 'text' });
          const driver = DRIVERS[i]!(gw());
          const out = await driver.askText(model, streamed);
          expect(out.text).to.equal(ANSWERS.text);
          expect(out.stop).to.equal(driver.stops.end);
          expect(out.usage.input).to.be.greaterThan(0);
          expect(out.usage.output).to.be.greaterThan(0);
          after();
        });
        it(`round-trips a tool call (${mode})`, async () => {
          enqueue({ fixture: 'tool-call' }, { fixture: 'tool-final' });
          const driver = DRIVERS[i]!(gw());
          const turn = await driver.askTool(model, streamed);
          expect(turn.first.toolCalls).to.have.length(1);
          expect(turn.first.toolCalls[0]!.name).to.equal(WEATHER_TOOL.name);
          expect(turn.first.toolCalls[0]!.arguments).to.deep.equal(TOOL_ARGUMENTS);
          expect(turn.first.stop).to.equal(driver.stops.tool);
          const second = await turn.answer(TOOL_RESULT);
          expect(second.text).to.equal(ANSWERS.toolFinal);
          expect(second.stop).to.equal(driver.stops.end);
          after();
        });
      }
    });
  });
}
