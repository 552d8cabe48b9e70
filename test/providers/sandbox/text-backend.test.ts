import { expect } from 'chai';
import { Ajv } from 'ajv';
import type { InternalResponse, StreamEvent, ToolCallPart, ToolDefinition } from '../../../src/codecs/internal.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import { signText } from '../../../src/providers/sandbox/hash.js';
import { createConversation, createFakeCall } from './fakes.js';

const backend = sandboxProvider.text!;
const call = createFakeCall('chat.completions', {});

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', minLength: 2 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1, maximum: 7 },
      detailed: { type: 'boolean' },
      when: { type: 'object', properties: { date: { type: 'string', format: 'date' } }, required: ['date'] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
    },
    required: ['location', 'unit', 'days', 'detailed', 'when', 'tags'],
    additionalProperties: false,
  },
};
const timeTool: ToolDefinition = {
  name: 'get_time',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Rebuilds a complete answer's content from stream events. */
function assembleContent(events: StreamEvent[]): InternalResponse['content'] {
  const blocks: InternalResponse['content'] = [];
  for (const event of events) {
    if (event.type === 'block_start') {
      if (event.block.type === 'text') blocks[event.index] = { type: 'text', text: '' };
      if (event.block.type === 'thinking') blocks[event.index] = { type: 'thinking', text: '' };
      if (event.block.type === 'tool_call') blocks[event.index] = { type: 'tool_call', id: event.block.id, name: event.block.name, arguments: '' };
    }
    if (event.type === 'block_delta') {
      const block = blocks[event.index]!;
      if (event.delta.type === 'text' && block.type === 'text') block.text += event.delta.text;
      if (event.delta.type === 'thinking' && block.type === 'thinking') block.text += event.delta.text;
      if (event.delta.type === 'signature' && block.type === 'thinking') block.signature = event.delta.signature;
      if (event.delta.type === 'arguments' && block.type === 'tool_call') block.arguments += event.delta.partialJson;
    }
  }
  return blocks;
}

describe('providers/sandbox/text-backend', () => {
  describe('#complete', () => {
    it('echoes the last user text with usage counted when no tools are given', async () => {
      const answer = await backend.complete(createConversation('Hello there, gateway!', { system: ['Be brief.'] }), call);
      expect(answer.content).to.deep.equal([{ type: 'text', text: 'Echo: Hello there, gateway!' }]);
      expect(answer.finishReason).to.equal('stop');
      expect(answer.id).to.match(/^sbx-[0-9a-f]{24}$/);
      expect(answer.model).to.equal('sandbox/echo-1');
      expect(answer.usage.inputTokens).to.equal(3 + 5); // "Be brief." + "Hello there, gateway!"
      expect(answer.usage.outputTokens).to.equal(7);
    });

    it('is deterministic: the same conversation gives the same id and content', async () => {
      const a = await backend.complete(createConversation('same input'), call);
      const b = await backend.complete(createConversation('same input'), call);
      expect(a.id).to.equal(b.id);
      expect(a.content).to.deep.equal(b.content);
    });

    it('describes images it receives', async () => {
      const request = createConversation('', {
        messages: [{ role: 'user', parts: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: Buffer.alloc(1234).toString('base64') } },
        ] }],
      });
      const answer = await backend.complete(request, call);
      expect(answer.content[0]).to.deep.equal({
        type: 'text', text: 'Echo: What is this? [image: https://example.com/cat.png] [image: base64 image/png 1234 bytes]',
      });
    });

    it('calls the tool with arguments valid against its schema when tools are given', async () => {
      const answer = await backend.complete(createConversation('What is the weather in Paris for 3 days?', { tools: [weatherTool] }), call);
      expect(answer.finishReason).to.equal('tool_calls');
      const calls = answer.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
      expect(calls).to.have.length(1);
      expect(calls[0]!.name).to.equal('get_weather');
      expect(calls[0]!.id).to.match(/^call_/);
      const args = JSON.parse(calls[0]!.arguments) as Record<string, unknown>;
      const validate = new Ajv({ strict: false }).compile(weatherTool.parameters);
      expect(validate(args), JSON.stringify(validate.errors)).to.equal(true);
      expect(args.location).to.equal('Paris');
      expect(args.unit).to.equal('celsius');
      expect(args.days).to.equal(3);
    });

    it('calls the named tool when tool_choice names one', async () => {
      const request = createConversation('weather please', { tools: [weatherTool, timeTool], toolChoice: { type: 'tool', name: 'get_time' } });
      const answer = await backend.complete(request, call);
      expect(answer.content.map((p) => (p as ToolCallPart).name)).to.deep.equal(['get_time']);
    });

    it('calls each mentioned tool in parallel, and only one when parallel calls are off', async () => {
      const text = 'Use get_weather for Paris and get_time for Tokyo';
      const parallel = await backend.complete(createConversation(text, { tools: [weatherTool, timeTool] }), call);
      const calls = parallel.content as ToolCallPart[];
      expect(calls.map((c) => c.name)).to.deep.equal(['get_weather', 'get_time']);
      expect(new Set(calls.map((c) => c.id)).size).to.equal(2);
      expect(JSON.parse(calls[1]!.arguments)).to.deep.equal({ city: 'Tokyo' });
      const single = await backend.complete(createConversation(text, { tools: [weatherTool, timeTool], parallelToolCalls: false }), call);
      expect(single.content).to.have.length(1);
    });

    it('answers in text when tool_choice is none', async () => {
      const answer = await backend.complete(createConversation('hi', { tools: [weatherTool], toolChoice: { type: 'none' } }), call);
      expect(answer.finishReason).to.equal('stop');
      expect(answer.content[0]).to.deep.equal({ type: 'text', text: 'Echo: hi' });
    });

    it('rejects a tool_choice naming an unknown tool with 400 unknown_tool', async () => {
      const request = createConversation('hi', { tools: [weatherTool], toolChoice: { type: 'tool', name: 'nope' } });
      try {
        await backend.complete(request, call);
        expect.fail('should throw');
      } catch (e) {
        expect(e).to.be.instanceOf(GatewayError);
        expect((e as GatewayError).status).to.equal(400);
        expect((e as GatewayError).code).to.equal('unknown_tool');
      }
    });

    it('summarizes tool results when the last turn holds them', async () => {
      const request = createConversation('', {
        tools: [weatherTool],
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"location":"Paris"}' }] },
          { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'call_1', content: '{"temp":21}' }] },
        ],
      });
      const answer = await backend.complete(request, call);
      expect(answer.finishReason).to.equal('stop');
      expect(answer.content).to.deep.equal([{ type: 'text', text: 'Tool get_weather returned: {"temp":21}' }]);
    });

    it('emits a thinking part with a stable signature when reasoning is asked', async () => {
      const request = createConversation('think about it', { reasoning: { effort: 'high' } });
      const a = await backend.complete(request, call);
      const b = await backend.complete(request, call);
      const thinking = a.content[0]!;
      expect(thinking.type).to.equal('thinking');
      if (thinking.type !== 'thinking') return;
      expect(thinking.signature).to.equal(signText(thinking.text));
      expect(b.content[0]).to.deep.equal(thinking);
      expect(a.content[1]).to.deep.equal({ type: 'text', text: 'Echo: think about it' });
      expect(a.usage.reasoningTokens).to.be.greaterThan(0);
      const none = await backend.complete(createConversation('x', { reasoning: { effort: 'none' } }), call);
      expect(none.content.map((p) => p.type)).to.deep.equal(['text']);
    });

    it('truncates to maxOutputTokens with finish reason length', async () => {
      const answer = await backend.complete(createConversation('one two three four five six', { maxOutputTokens: 3 }), call);
      expect(answer.content).to.deep.equal([{ type: 'text', text: 'Echo: one' }]);
      expect(answer.finishReason).to.equal('length');
      expect(answer.usage.outputTokens).to.equal(3);
    });

    it('cuts before a stop sequence with finish reason stop_sequence', async () => {
      const answer = await backend.complete(createConversation('alpha beta STOP gamma', { stop: ['gamma', 'STOP'] }), call);
      expect(answer.content).to.deep.equal([{ type: 'text', text: 'Echo: alpha beta ' }]);
      expect(answer.finishReason).to.equal('stop_sequence');
      expect(answer.stopSequence).to.equal('STOP');
    });

    it('answers JSON matching a json_schema response format', async () => {
      const schema = { type: 'object', properties: { city: { type: 'string' }, count: { type: 'integer' } }, required: ['city', 'count'] };
      const answer = await backend.complete(createConversation('Trip to Rome with 4 friends', { responseFormat: { type: 'json_schema', schema } }), call);
      const text = (answer.content[0] as { text: string }).text;
      expect(JSON.parse(text)).to.deep.equal({ city: 'Rome', count: 4 });
    });
  });

  describe('#stream', () => {
    it('streams events that concatenate to the complete answer', async () => {
      const request = createConversation('Stream this sentence, word by word.', { reasoning: { effort: 'low' } });
      const complete = await backend.complete(request, call);
      const events = await collect(backend.stream({ ...request, stream: true }, call));
      expect(events[0]).to.include({ type: 'start', id: complete.id });
      expect(events.at(-2)).to.deep.equal({ type: 'finish', finishReason: 'stop' });
      expect(events.at(-1)).to.deep.equal({ type: 'usage', usage: complete.usage });
      expect(assembleContent(events)).to.deep.equal(complete.content);
      const textDeltas = events.filter((e) => e.type === 'block_delta' && e.delta.type === 'text');
      expect(textDeltas.length).to.equal(7); // "Echo:" + 6 words
    });

    it('streams tool-call arguments as several partial JSON fragments', async () => {
      const request = createConversation('weather in Paris', { tools: [weatherTool] });
      const complete = await backend.complete(request, call);
      const events = await collect(backend.stream(request, call));
      const fragments = events.filter((e) => e.type === 'block_delta' && e.delta.type === 'arguments');
      expect(fragments.length).to.be.greaterThan(2);
      expect(assembleContent(events)).to.deep.equal(complete.content);
      expect(events.find((e) => e.type === 'finish')).to.deep.equal({ type: 'finish', finishReason: 'tool_calls' });
    });

    it('carries the stop sequence on the finish event', async () => {
      const events = await collect(backend.stream(createConversation('a b c', { stop: ['b'] }), call));
      expect(events.find((e) => e.type === 'finish')).to.deep.equal({ type: 'finish', finishReason: 'stop_sequence', stopSequence: 'b' });
    });

    it('delivers incrementally and stops producing when the call is aborted', async () => {
      const controller = new AbortController();
      const aborting = createFakeCall('chat.completions', {}, { signal: controller.signal });
      const iterator = backend.stream(createConversation('one two three four five six seven eight'), aborting)[Symbol.asyncIterator]();
      let ticked = false;
      setImmediate(() => { ticked = true; });
      const first = await iterator.next();
      expect(first.value).to.include({ type: 'start' });
      await iterator.next();
      expect(ticked, 'the event loop ran between events').to.equal(true);
      controller.abort();
      const rest: unknown[] = [];
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
      expect(rest).to.have.length(0);
    });
  });
});
