import { expect } from 'chai';
import { createCallMeter } from '../../src/billing/call-meter.js';
import type { SpendHold } from '../../src/billing/spend-hold.js';
import type { SseFrame } from '../../src/codecs/codec.js';
import { anthropicMessagesDialect, anthropicMessagesSurface } from '../../src/codecs/anthropic-messages/index.js';
import type { Conversation } from '../../src/codecs/internal.js';
import { openAiChatDialect, openAiChatSurface } from '../../src/codecs/openai-chat/index.js';
import { writeSseFrame } from '../../src/sse-frame.js';
import { IdentityStage } from '../../src/calls/identity-stage.js';
import { ModelRenamer } from '../../src/calls/model-rename.js';

const hold: SpendHold = { needsEstimate: false, reserve: async () => 0, settle: async () => undefined };
const pricing = { prompt: 0.000002, completion: 0.000008 };
const conversation = (model: string, includeUsage = false): Conversation => ({ model, system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true, includeUsage });

const chunk = (fields: string) => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-x-2025",${fields}}\n\n`;
const content = (text: string) => chunk(`"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]`);

/** Pushes each text in turn and returns the wire text written, plus the closing frames. */
function run(stage: IdentityStage, texts: string[], cost = 0.001): { wire: string; closing: string; failed?: string } {
  let wire = '';
  for (const text of texts) {
    const out: SseFrame[] = [];
    const failure = stage.push(text, out);
    wire += out.map(writeSseFrame).join('');
    if (failure) return { wire, closing: '', failed: failure.error.code ?? undefined };
  }
  const ended = stage.end();
  stage.beforeFinish();
  return { wire, closing: stage.close(cost, ended !== undefined).map(writeSseFrame).join(''), failed: ended?.error.code ?? undefined };
}

describe('calls/identity-stage', () => {
  describe('IdentityStage (openai-chat)', () => {
    it('forwards content chunks as text with the model renamed, blank lines and comments left out', () => {
      const request = conversation('openai/gpt-x', true);
      const stage = new IdentityStage(openAiChatSurface, openAiChatDialect, request, createCallMeter(request, pricing, hold, 5));
      const first = chunk('"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]');
      const finish = chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]');
      const usage = chunk('"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}');
      const { wire, closing, failed } = run(stage, [
        `${first}${content('a')}\n\n${content('b')}: keep-alive\n\n${content('c')}`,
        `${finish}${usage}data: [DONE]\n\n`,
      ]);
      expect(failed).to.equal(undefined);
      const renamed = (text: string) => text.replace('"model":"gpt-x-2025"', '"model":"openai/gpt-x"');
      expect(wire).to.equal(renamed(first) + renamed(content('a')) + renamed(content('b')) + renamed(content('c')) + renamed(finish) + renamed(usage).replace('"usage":{', '"usage":{"cost":0.000034,'));
      expect(closing).to.equal('data: [DONE]\n\n');
    });

    it('holds a chunk with usage for one chunk at most, then sends it before that chunk', () => {
      const request = conversation('openai/gpt-x', true);
      const stage = new IdentityStage(openAiChatSurface, openAiChatDialect, request, createCallMeter(request, pricing, hold, 5));
      // A usage object on a content-looking chunk before the finish (some compatible servers).
      const early = chunk('"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}');
      const out: SseFrame[] = [];
      stage.push(content('first') + early + content('after'), out);
      const text = out.map(writeSseFrame).join('');
      // The early usage chunk waited for the next chunk (no usage event came): it goes out before
      // it, as it came (no cost known), and nothing is lost or reordered.
      const at = (part: string) => text.indexOf(part);
      expect(at('"content":"first"')).to.be.within(0, at('"completion_tokens":1') - 1);
      expect(at('"completion_tokens":1')).to.be.lessThan(at('"content":"after"'));
      expect(text).to.not.include('"cost"');
    });

    it('bills the output of undecoded chunks when the upstream reports no usage', () => {
      const request = conversation('openai/gpt-x');
      const meter = createCallMeter(request, pricing, hold, 5);
      const stage = new IdentityStage(openAiChatSurface, openAiChatDialect, request, meter);
      const first = chunk('"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]');
      run(stage, [first + content('x'.repeat(30)) + content('y'.repeat(60)) + chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]') + 'data: [DONE]\n\n']);
      const { usage, estimated } = meter.usage();
      expect(estimated).to.equal(true);
      // 90 characters of output, estimated at a few characters per token.
      expect(usage.outputTokens).to.be.within(20, 45);
    });

    it('ends with the client\'s error when a chunk is cut short, after the chunks before it', () => {
      const request = conversation('openai/gpt-x');
      const stage = new IdentityStage(openAiChatSurface, openAiChatDialect, request, createCallMeter(request, pricing, hold, 5));
      const { wire, failed } = run(stage, [content('a') + content('b') + 'data: {"id":"c1","choices":[{"delta":{"content":"tru\n\n']);
      expect(failed).to.equal('invalid_upstream_response');
      expect(wire).to.include('"content":"b"');
      expect(wire).to.not.include('tru');
    });
  });

  describe('IdentityStage (anthropic-messages)', () => {
    it('forwards named content events as text and holds message_delta until its usage is counted', () => {
      const request = conversation('anthropic/claude-x');
      const stage = new IdentityStage(anthropicMessagesSurface, anthropicMessagesDialect, request, createCallMeter(request, pricing, hold, 5));
      const ev = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n`;
      const start = ev('message_start', '{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"claude-x-1","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}');
      const blockStart = ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
      const delta = (t: string) => ev('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${t}"}}`);
      const blockStop = ev('content_block_stop', '{"type":"content_block_stop","index":0}');
      const messageDelta = ev('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}');
      const stop = ev('message_stop', '{"type":"message_stop"}');
      const { wire, closing, failed } = run(stage, [start + blockStart + delta('Hel') + delta('lo'), blockStop + messageDelta + stop]);
      expect(failed).to.equal(undefined);
      expect(wire.startsWith(start.replace('"model":"claude-x-1"', '"model":"anthropic/claude-x"'))).to.equal(true);
      expect(wire).to.include(blockStart + delta('Hel') + delta('lo') + blockStop);
      // The cost of 5 input and 4 output tokens at the test prices.
      expect(wire).to.include('"usage":{"cost":0.000042,"output_tokens":4}');
      expect(wire.indexOf('message_delta')).to.be.lessThan(wire.indexOf('message_stop'));
      expect(closing).to.equal('');
    });
  });

  describe('ModelRenamer#locate', () => {
    it('finds the field inside the given range only, at the learned offset or by a search', () => {
      const renamer = new ModelRenamer('p/m');
      const text = 'xx{"id":"a","model":"m1"}yy{"id":"bb","model":"m1"}zz{"id":"c"}';
      const first = renamer.locate(text, 2, 25);
      expect(text.slice(first, first + renamer.fieldLength)).to.equal('"model":"m1"');
      const second = renamer.locate(text, 27, 51);
      expect(text.slice(second, second + renamer.fieldLength)).to.equal('"model":"m1"');
      expect(second).to.be.greaterThan(27);
      // The range holds no model: nothing is found, even though text before it has one.
      expect(renamer.locate(text, 53, text.length)).to.equal(-1);
      expect(renamer.locate('{"model":"p/m"}', 0, 15)).to.equal(-1);
    });
  });
});
