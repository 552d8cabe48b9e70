import { expect } from 'chai';
import type { TestGateway } from '../../helpers/gateway.js';
import { bootSandbox, KEY_A, postJson, type ErrorEnvelope } from './helpers.js';

const MODEL = 'sandbox/echo-1';

interface ResearchRun { id: string; object: string; model: string; status: string; output_text: string; output: Array<{ type: string; content: Array<{ type: string; text: string }> }>; usage: { input_tokens: number; output_tokens: number; total_tokens: number } }
interface RoboticsSession { id: string; object: string; model: string; status: string; output_text: string; plan: { steps: Array<{ index: number; description: string }> }; usage: { total_tokens: number } }

describe('e2e sandbox: tasks', () => {
  let gw: TestGateway;
  before(async () => { gw = await bootSandbox(); });
  after(() => gw.close());

  describe('POST /v1/research/runs', () => {
    it('completes a run from a string input, with output text and usage', async () => {
      const res = await postJson<ResearchRun>(gw, '/v1/research/runs', { model: MODEL, input: 'history of the printing press', instructions: 'cite sources' });
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('research.run');
      expect(res.body.status).to.equal('completed');
      expect(res.body.model).to.equal(MODEL);
      expect(res.body.output_text).to.equal('Echo: history of the printing press');
      expect(res.body.output[0]!.content[0]!.text).to.equal(res.body.output_text);
      expect(res.body.usage.total_tokens).to.equal(res.body.usage.input_tokens + res.body.usage.output_tokens);
    });

    it('accepts chat messages as input and honours max_output_tokens', async () => {
      const res = await postJson<ResearchRun>(gw, '/v1/research/runs', {
        model: MODEL,
        input: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
        max_output_tokens: 2,
      });
      expect(res.status).to.equal(200);
      expect(res.body.usage.output_tokens).to.be.at.most(2);
      expect('Echo: one two three four five six seven eight nine ten'.startsWith(res.body.output_text)).to.equal(true);
    });

    it('answers 400 naming input when it is missing', async () => {
      const res = await postJson<ErrorEnvelope>(gw, '/v1/research/runs', { model: MODEL });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('input');
    });
  });

  describe('POST /v1/robotics/sessions', () => {
    it('plans steps from structured input', async () => {
      const res = await postJson<RoboticsSession>(gw, '/v1/robotics/sessions', { model: MODEL, input: { goal: 'pick up the red cube', joints: 6 } });
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('robotics.session');
      expect(res.body.status).to.equal('completed');
      expect(res.body.plan.steps.length).to.be.greaterThan(0);
      expect(res.body.plan.steps[0]!.index).to.equal(1);
      expect(res.body.output_text).to.include('pick up the red cube');
    });

    it('plans from chat messages', async () => {
      const res = await postJson<RoboticsSession>(gw, '/v1/robotics/sessions', { model: MODEL, messages: [{ role: 'user', content: 'open the gripper' }] });
      expect(res.status).to.equal(200);
      expect(res.body.output_text).to.equal('Echo: open the gripper');
      expect(res.body.plan.steps.map((s) => s.description).join(' ')).to.include('open the gripper');
    });

    it('answers 400 when neither input nor messages is given', async () => {
      const res = await postJson<ErrorEnvelope>(gw, '/v1/robotics/sessions', { model: MODEL });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('input').and.include('messages');
    });
  });

  describe('stream: true (no field of the task surfaces, SPEC 2.8, 4.10, 4.11)', () => {
    for (const [path, object] of [['/v1/research/runs', 'research.run'], ['/v1/robotics/sessions', 'robotics.session']] as const) {
      it(`${path} answers one JSON object, never SSE`, async () => {
        const res = await fetch(`${gw.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, input: 'stack the blocks', stream: true }),
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        const body = (await res.json()) as { object: string; status: string; output_text: string };
        expect(body.object).to.equal(object);
        expect(body.status).to.equal('completed');
        expect(body.output_text).to.equal('Echo: stack the blocks');
      });
    }
  });
});
