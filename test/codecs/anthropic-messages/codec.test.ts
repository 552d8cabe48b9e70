import { expect } from 'chai';
import type { SseFrame } from '../../../src/codecs/codec.js';
import type { Conversation, StreamEvent } from '../../../src/codecs/internal.js';
import { anthropicMessagesDialect, anthropicMessagesSurface } from '../../../src/codecs/anthropic-messages/index.js';
import { readFixture } from '../openai-chat/support/golden.js';

const conversation = (extra: Partial<Conversation> = {}): Conversation => ({
  model: 'anthropic/claude-sonnet-4-5', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true, ...extra,
});
const target = (options: Record<string, unknown> = {}, params: string[] = []) => ({ upstreamModel: 'claude-sonnet-4-5', supportedParameters: new Set(params), options });

function encodeAll(events: StreamEvent[]): SseFrame[] {
  const encoder = anthropicMessagesSurface.createStreamEncoder(conversation());
  return [...events.flatMap((e) => encoder.encode(e)), ...encoder.end()];
}

describe('codecs/anthropic-messages', () => {
  describe('anthropicMessagesDialect.authHeaders', () => {
    it('sends x-api-key and the default anthropic-version', () => {
      expect(anthropicMessagesDialect.authHeaders('sk-ant', {})).to.deep.equal({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
    });

    it('sends the configured version and beta names', () => {
      expect(anthropicMessagesDialect.authHeaders('k', { anthropic_version: '2026-10-21', beta: ['a', 'b'] })).to.deep.equal({
        'x-api-key': 'k', 'anthropic-version': '2026-10-21', 'anthropic-beta': 'a,b',
      });
    });
  });

  describe('anthropicMessagesDialect.encodeRequest', () => {
    it('requests POST /v1/messages with max_tokens from default_max_tokens when the client set none', () => {
      const request = anthropicMessagesDialect.encodeRequest(conversation(), target({ default_max_tokens: 777 }));
      expect(request.path).to.equal('/v1/messages');
      expect(request.body.max_tokens).to.equal(777);
    });

    it('falls back to 4096 max_tokens without any configuration', () => {
      expect(anthropicMessagesDialect.encodeRequest(conversation(), target()).body.max_tokens).to.equal(4096);
    });

    it('clamps a chat temperature above 1 to 1', () => {
      expect(anthropicMessagesDialect.encodeRequest(conversation({ temperature: 1.7 }), target()).body.temperature).to.equal(1);
    });

    it('never sends temperature, top_p or top_k under version 2026-10-21', () => {
      const body = anthropicMessagesDialect.encodeRequest(conversation({ temperature: 0.5, topP: 0.5, topK: 5 }), target({ anthropic_version: '2026-10-21' })).body;
      expect(body).to.not.have.any.keys('temperature', 'top_p', 'top_k');
    });

    it('drops temperature and top_k while thinking is on', () => {
      const body = anthropicMessagesDialect.encodeRequest(conversation({ temperature: 0.5, topK: 5, reasoning: { effort: 'high' } }), target()).body;
      expect(body).to.not.have.any.keys('temperature', 'top_k');
      expect(body.thinking).to.deep.equal({ type: 'adaptive' });
    });

    it('sends thinking disabled for reasoning effort none', () => {
      expect(anthropicMessagesDialect.encodeRequest(conversation({ reasoning: { effort: 'none' } }), target()).body.thinking).to.deep.equal({ type: 'disabled' });
    });

    it('leaves thinking out when no valid budget fits under max_tokens', () => {
      const body = anthropicMessagesDialect.encodeRequest(conversation({ maxOutputTokens: 800, reasoning: { budgetTokens: 5000 } }), target()).body;
      expect(body).to.not.have.property('thinking');
    });

    it('rewrites tool ids Anthropic would reject the same way in tool_use and tool_result', () => {
      const body = anthropicMessagesDialect.encodeRequest(conversation({
        messages: [
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'call:1/a', name: 'f', arguments: '{}' }] },
          { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'call:1/a', content: 'ok' }] },
        ],
      }), target()).body;
      const [assistant, user] = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
      expect(assistant!.content[0]!.id).to.equal('call_1_a');
      expect(user!.content[0]!.tool_use_id).to.equal('call_1_a');
    });
  });

  describe('anthropicMessagesSurface.createStreamEncoder', () => {
    const parallel = readFixture<StreamEvent[]>('openai-chat', 'parallel-tool-calls-stream', 'internal-stream.json')!;

    it('sets event: to the data type on every frame', () => {
      for (const frame of encodeAll(parallel)) expect(frame.event).to.equal((JSON.parse(frame.data) as { type: string }).type);
    });

    it('writes interleaved upstream tool calls as sequential blocks whose input_json_delta fragments form the full input', () => {
      const frames = encodeAll(parallel).map((f) => JSON.parse(f.data) as { type: string; index?: number; delta?: { partial_json?: string } });
      const order = frames.filter((f) => f.type.startsWith('content_block')).map((f) => `${f.type}:${f.index}`);
      expect(order).to.deep.equal([
        'content_block_start:0', 'content_block_delta:0', 'content_block_stop:0',
        'content_block_start:1', 'content_block_delta:1', 'content_block_delta:1', 'content_block_stop:1',
        'content_block_start:2', 'content_block_delta:2', 'content_block_delta:2', 'content_block_stop:2',
      ]);
      const input = (i: number) => JSON.parse(frames.filter((f) => f.index === i && f.delta?.partial_json !== undefined).map((f) => f.delta!.partial_json).join('')) as unknown;
      expect([input(1), input(2)]).to.deep.equal([{ city: 'Paris' }, { city: 'Berlin' }]);
    });

    it('ends with message_delta then message_stop even without a usage event', () => {
      const frames = encodeAll(parallel.filter((e) => e.type !== 'usage'));
      expect(frames.slice(-2).map((f) => f.event)).to.deep.equal(['message_delta', 'message_stop']);
    });
  });

  describe('anthropicMessagesDialect.createStreamDecoder', () => {
    it('merges cumulative message_delta usage over message_start instead of adding', () => {
      const decoder = anthropicMessagesDialect.createStreamDecoder(conversation());
      const events = [
        { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 } } },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } },
        { type: 'message_delta', delta: {}, usage: { output_tokens: 25 } },
        { type: 'message_stop' },
      ].flatMap((data) => decoder.decode({ event: data.type, data: JSON.stringify(data) }));
      expect(events.at(-1)).to.deep.equal({ type: 'usage', usage: { inputTokens: 100, outputTokens: 25, cachedInputTokens: 90 } });
    });
  });
});
