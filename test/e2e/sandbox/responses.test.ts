import { expect } from 'chai';
import type OpenAI from 'openai';
import { openAiClient, useSandbox } from './helpers.js';

const MODEL = 'sandbox/echo-1';
const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('e2e sandbox: POST /v1/responses (openai SDK)', () => {
  const sb = useSandbox(openAiClient);

  describe('responses.create', () => {
    it('answers a plain request; output_text is the echo', async () => {
      const response = await sb.client.responses.create({ model: MODEL, input: 'hello responses', instructions: 'Answer plainly.' });
      expect(response.object).to.equal('response');
      expect(response.id).to.match(/^resp_/);
      expect(response.status).to.equal('completed');
      expect(response.model).to.equal(MODEL);
      expect(response.output_text).to.equal('Echo: hello responses');
      const message = response.output.find((o): o is OpenAI.Responses.ResponseOutputMessage => o.type === 'message')!;
      expect(message.role).to.equal('assistant');
      expect(response.usage!.input_tokens).to.be.greaterThan(0);
      expect(response.usage!.output_tokens).to.be.greaterThan(0);
    });

    it('accepts chat-style input messages', async () => {
      const response = await sb.client.responses.create({ model: MODEL, input: [{ role: 'user', content: 'from a message list' }] });
      expect(response.output_text).to.equal('Echo: from a message list');
    });

    it('streams the responses event sequence through response.completed', async () => {
      const stream = await sb.client.responses.create({ model: MODEL, input: 'stream the response please', stream: true });
      const types: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      expect(types[0]).to.equal('response.created');
      expect(types.at(-1)).to.equal('response.completed');
      expect(types).to.include.members(['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.output_item.done']);
      expect(types.filter((t) => t === 'response.output_text.delta').length).to.be.greaterThan(3);
      expect(text).to.equal('Echo: stream the response please');
      expect(completed!.status).to.equal('completed');
      expect(completed!.output_text ?? text).to.equal('Echo: stream the response please');
      expect(completed!.usage!.output_tokens).to.be.greaterThan(0);
    });

    it('calls a function, then answers from its output', async () => {
      const first = await sb.client.responses.create({ model: MODEL, input: 'Use get_weather for Oslo', tools: [weatherTool] });
      const call = first.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
      expect(call.name).to.equal('get_weather');
      expect(call.call_id).to.be.a('string').and.not.equal('');
      expect((JSON.parse(call.arguments) as { city: unknown }).city).to.be.a('string').and.not.equal('');

      const second = await sb.client.responses.create({
        model: MODEL,
        tools: [weatherTool],
        input: [
          { role: 'user', content: 'Use get_weather for Oslo' },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: '-3 C, snow' },
        ],
      });
      expect(second.output_text).to.equal('Tool get_weather returned: -3 C, snow');
    });

    it('streams a function call whose arguments arrive complete', async () => {
      const stream = await sb.client.responses.create({ model: MODEL, input: 'Use get_weather for Quito', tools: [weatherTool], stream: true });
      let argumentDeltas = '';
      let done: OpenAI.Responses.ResponseFunctionToolCall | undefined;
      for await (const event of stream) {
        if (event.type === 'response.function_call_arguments.delta') argumentDeltas += event.delta;
        if (event.type === 'response.output_item.done' && event.item.type === 'function_call') done = event.item;
      }
      expect(done!.name).to.equal('get_weather');
      expect(argumentDeltas).to.equal(done!.arguments);
      expect((JSON.parse(done!.arguments) as { city: unknown }).city).to.be.a('string').and.not.equal('');
    });
  });
});
