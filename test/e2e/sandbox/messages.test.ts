import type Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { anthropicClient, useSandbox } from './helpers.js';

const MODEL = 'sandbox/echo-1';
const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('e2e sandbox: POST /v1/messages (@anthropic-ai/sdk)', () => {
  const sb = useSandbox(anthropicClient);

  describe('messages.create', () => {
    it('answers a plain request as a message with a text block, stop reason and usage', async () => {
      const message = await sb.client.messages.create({ model: MODEL, max_tokens: 256, system: 'Be kind.', messages: [{ role: 'user', content: 'hello messages' }] });
      expect(message.type).to.equal('message');
      expect(message.role).to.equal('assistant');
      expect(message.id).to.match(/^msg_/);
      expect(message.model).to.equal(MODEL);
      expect(message.content).to.have.length(1);
      const block = message.content[0]!;
      expect(block.type).to.equal('text');
      expect(block.type === 'text' && block.text).to.equal('Echo: hello messages');
      expect(message.stop_reason).to.equal('end_turn');
      expect(message.usage.input_tokens).to.be.greaterThan(0);
      expect(message.usage.output_tokens).to.be.greaterThan(0);
    });

    it('stops at a stop sequence and reports it', async () => {
      const message = await sb.client.messages.create({ model: MODEL, max_tokens: 256, stop_sequences: ['STOP'], messages: [{ role: 'user', content: 'one two STOP three' }] });
      expect(message.stop_reason).to.equal('stop_sequence');
      expect(message.stop_sequence).to.equal('STOP');
      const block = message.content[0]!;
      expect(block.type === 'text' && block.text).to.equal('Echo: one two ');
    });

    it('streams the messages event grammar, text arriving in several deltas', async () => {
      const stream = sb.client.messages.stream({ model: MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'stream this message to me' }] });
      const types: string[] = [];
      const deltas: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      stream.on('text', (delta) => deltas.push(delta));
      const final = await stream.finalMessage();
      expect(types[0]).to.equal('message_start');
      expect(types.at(-1)).to.equal('message_stop');
      expect(types).to.include.members(['content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta']);
      expect(types.indexOf('content_block_start')).to.be.lessThan(types.indexOf('content_block_delta'));
      expect(types.lastIndexOf('content_block_delta')).to.be.lessThan(types.indexOf('content_block_stop'));
      expect(deltas.length).to.be.greaterThan(3);
      expect(deltas.join('')).to.equal('Echo: stream this message to me');
      const block = final.content[0]!;
      expect(block.type === 'text' && block.text).to.equal('Echo: stream this message to me');
      expect(final.stop_reason).to.equal('end_turn');
      expect(final.usage.output_tokens).to.be.greaterThan(0);
    });

    it('uses a tool, then answers from the tool result', async () => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Use get_weather for Lisbon' }];
      const first = await sb.client.messages.create({ model: MODEL, max_tokens: 256, tools: [weatherTool], messages });
      expect(first.stop_reason).to.equal('tool_use');
      const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      expect(use.name).to.equal('get_weather');
      expect(use.id).to.be.a('string').and.not.equal('');
      expect((use.input as { city: unknown }).city).to.be.a('string').and.not.equal('');

      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '21 C, clear' }] });
      const second = await sb.client.messages.create({ model: MODEL, max_tokens: 256, tools: [weatherTool], messages });
      expect(second.stop_reason).to.equal('end_turn');
      const block = second.content[0]!;
      expect(block.type === 'text' && block.text).to.equal('Tool get_weather returned: 21 C, clear');
    });

    it('streams a tool use whose input arrives complete (never an empty input)', async () => {
      const stream = sb.client.messages.stream({
        model: MODEL,
        max_tokens: 256,
        tools: [weatherTool],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [{ role: 'user', content: 'Use get_weather for Montevideo' }],
      });
      const partials: string[] = [];
      stream.on('inputJson', (partial) => partials.push(partial));
      const final = await stream.finalMessage();
      expect(final.stop_reason).to.equal('tool_use');
      const use = final.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      expect(use.name).to.equal('get_weather');
      expect(partials.length).to.be.greaterThan(1);
      expect(use.input).to.not.deep.equal({});
      expect((use.input as { city: unknown }).city).to.be.a('string').and.not.equal('');
    });

    it('returns a signed thinking block before the text when thinking is enabled', async () => {
      const { data: message, response } = await sb.client.messages.create({
        model: MODEL,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'think about this' }],
      }).withResponse();
      expect(response.headers.get('x-gateway-dropped-params') ?? '').to.not.include('thinking');
      expect(message.content.map((b) => b.type)).to.deep.equal(['thinking', 'text']);
      const [thinking, text] = message.content;
      if (thinking!.type !== 'thinking' || text!.type !== 'text') throw new Error('unexpected blocks');
      expect(thinking!.thinking).to.include('think about this');
      expect(thinking!.signature).to.be.a('string').and.not.equal('');
      expect(text!.text).to.equal('Echo: think about this');
      expect(message.usage.output_tokens).to.be.greaterThan(0);
    });
  });
});
