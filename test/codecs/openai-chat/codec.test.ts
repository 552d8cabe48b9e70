import { expect } from 'chai';
import type { SseFrame } from '../../../src/codecs/codec.js';
import type { Conversation, StreamEvent } from '../../../src/codecs/internal.js';
import { openAiChatDialect, openAiChatSurface } from '../../../src/codecs/openai-chat/index.js';
import { readFixture } from './support/golden.js';

const conversation = (extra: Partial<Conversation> = {}): Conversation => ({
  model: 'openai/gpt-4.1', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true, ...extra,
});

function encodeAll(request: Conversation, events: StreamEvent[]): SseFrame[] {
  const encoder = openAiChatSurface.createStreamEncoder(request);
  return [...events.flatMap((e) => encoder.encode(e)), ...encoder.end()];
}

describe('codecs/openai-chat', () => {
  describe('openAiChatDialect.authHeaders', () => {
    it('sends the key as a Bearer token', () => {
      expect(openAiChatDialect.authHeaders('sk-test', {})).to.deep.equal({ authorization: 'Bearer sk-test' });
    });

    it('adds organization and project headers when the provider sets them', () => {
      expect(openAiChatDialect.authHeaders('k', { organization: 'org-1', project: 'proj-2' })).to.deep.equal({
        authorization: 'Bearer k', 'openai-organization': 'org-1', 'openai-project': 'proj-2',
      });
    });
  });

  describe('openAiChatDialect.encodeRequest', () => {
    const target = { upstreamModel: 'gpt-4.1', supportedParameters: new Set<string>(), options: {} };

    it('always asks for the usage chunk when streaming, whatever the client asked', () => {
      const body = openAiChatDialect.encodeRequest(conversation({ includeUsage: false }), target).body;
      expect(body.stream_options).to.deep.equal({ include_usage: true });
    });

    it('uses max_tokens when the catalog lists only max_tokens', () => {
      const body = openAiChatDialect.encodeRequest(conversation({ maxOutputTokens: 9 }), { ...target, supportedParameters: new Set(['max_tokens']) }).body;
      expect(body).to.include({ max_tokens: 9 }).and.not.have.property('max_completion_tokens');
    });

    it('sends assistant thinking as reasoning_content only when the provider option asks', () => {
      const request = conversation({
        messages: [{ role: 'assistant', parts: [{ type: 'thinking', text: 'hmm' }, { type: 'text', text: 'ok' }] }],
      });
      const plain = openAiChatDialect.encodeRequest(request, target).body.messages as Array<Record<string, unknown>>;
      const withOption = openAiChatDialect.encodeRequest(request, { ...target, options: { reasoning_content: true } }).body.messages as Array<Record<string, unknown>>;
      expect(plain[0]).to.deep.equal({ role: 'assistant', content: 'ok' });
      expect(withOption[0]).to.deep.equal({ role: 'assistant', content: 'ok', reasoning_content: 'hmm' });
    });
  });

  describe('openAiChatSurface.createStreamEncoder', () => {
    const events = readFixture<StreamEvent[]>('openai-chat', 'parallel-tool-calls-stream', 'internal-stream.json')!;

    it('writes data-only frames ending with [DONE]', () => {
      const frames = encodeAll(conversation({ includeUsage: true }), events);
      expect(frames.every((f) => f.event === undefined)).to.equal(true);
      expect(frames.at(-1)).to.deep.equal({ data: '[DONE]' });
    });

    it('streams tool-call argument fragments that concatenate to each call\'s full JSON', () => {
      const args = new Map<number, string>();
      for (const frame of encodeAll(conversation(), events).slice(0, -1)) {
        const chunk = JSON.parse(frame.data) as { choices: Array<{ delta: { tool_calls?: Array<{ index: number; function: { arguments: string } }> } }> };
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args.set(call.index, (args.get(call.index) ?? '') + call.function.arguments);
      }
      expect([...args.values()].map((a) => JSON.parse(a) as unknown)).to.deep.equal([{ city: 'Paris' }, { city: 'Berlin' }]);
    });

    it('sends no choices:[] usage chunk when the client did not ask include_usage', () => {
      const frames = encodeAll(conversation({ includeUsage: false }), events).slice(0, -1);
      const chunks = frames.map((f) => JSON.parse(f.data) as { choices: unknown[]; usage?: unknown });
      expect(chunks.some((c) => c.choices.length === 0)).to.equal(false);
      expect(chunks.some((c) => 'usage' in c)).to.equal(false);
    });

    it('emits nothing more after a failure', () => {
      const encoder = openAiChatSurface.createStreamEncoder(conversation());
      encoder.encode(events[0]!);
      const failure = encoder.fail({ status: 502, type: 'upstream_error', code: 'x', message: 'boom' });
      expect(JSON.parse(failure[0]!.data)).to.deep.equal({ error: { message: 'boom', type: 'upstream_error', code: 'x' } });
      expect(encoder.end()).to.deep.equal([]);
    });
  });

  describe('openAiChatDialect.createStreamDecoder', () => {
    it('ignores frames after [DONE] and reports no truncation at the end', () => {
      const decoder = openAiChatDialect.createStreamDecoder(conversation());
      decoder.decode({ data: JSON.stringify({ id: 'c1', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }) });
      decoder.decode({ data: '[DONE]' });
      expect(decoder.end()).to.deep.equal([]);
    });
  });
});
