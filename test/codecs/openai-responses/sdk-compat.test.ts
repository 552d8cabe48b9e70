import { expect } from 'chai';
import OpenAI from 'openai';
import type { Conversation, InternalResponse } from '../../../src/codecs/internal.js';
import { openAiResponsesSurface } from '../../../src/codecs/openai-responses/index.js';
import { GoldenCase, runStreamEncoder, useFixedClock, type RecordedEvent } from './golden-support.js';

/** An OpenAI client whose fetch answers every call with `body` (no network). */
function clientAnswering(body: string, contentType: string): OpenAI {
  const fetch = async (): Promise<Response> => new Response(body, { status: 200, headers: { 'content-type': contentType } });
  return new OpenAI({ apiKey: 'test', baseURL: 'http://gateway.invalid/v1', fetch, maxRetries: 0 });
}

/** The surface's stream for a fixture case, written as SSE text the way the engine frames it. */
function sseTextOf(caseName: string): string {
  const c = new GoldenCase('openai-responses', caseName);
  const frames = runStreamEncoder(openAiResponsesSurface.createStreamEncoder(c.read<Conversation>('internal-request.json')), c.read<RecordedEvent[]>('internal-stream.json'));
  return frames.map((f) => `${f.event !== undefined ? `event: ${f.event}\n` : ''}data: ${f.data}\n\n`).join('');
}

describe('codecs/openai-responses with the official openai SDK', () => {
  useFixedClock();

  describe('responses.create', () => {
    it('reads a non-streamed answer and derives output_text', async () => {
      const c = new GoldenCase('openai-responses', 'reasoning-round-trip');
      const body = openAiResponsesSurface.encodeResponse(c.read<InternalResponse>('internal-response.json'), c.read<Conversation>('internal-request.json'));
      const response = await clientAnswering(JSON.stringify(body), 'application/json').responses.create({ model: 'openai/o4-mini', input: 'x' });
      expect(response.output_text).to.equal('Day 1: Alfama.');
      expect(response.output.map((item) => item.type)).to.deep.equal(['reasoning', 'message']);
      expect(response.usage?.output_tokens_details.reasoning_tokens).to.equal(768);
    });
  });

  describe('responses.stream', () => {
    it('accumulates a streamed text answer into the final response', async () => {
      const stream = clientAnswering(sseTextOf('plain-text'), 'text/event-stream').responses.stream({ model: 'openai/gpt-4.1-mini', input: 'x' });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).to.equal('Hello there!');
      expect(final.output_text).to.equal('Hello there!');
      expect(final.status).to.equal('completed');
    });

    it('accumulates streamed function call arguments', async () => {
      const final = await clientAnswering(sseTextOf('tools'), 'text/event-stream').responses.stream({ model: 'openai/gpt-4.1', input: 'x' }).finalResponse();
      const call = final.output[0];
      expect(call?.type).to.equal('function_call');
      expect(call?.type === 'function_call' ? JSON.parse(call.arguments) : undefined).to.deep.equal({ city: 'Paris' });
    });

    it('delivers the in-band error and response.failed to a raw event stream', async () => {
      const stream = await clientAnswering(sseTextOf('stream-failure'), 'text/event-stream').responses.create({ model: 'openai/gpt-4.1', input: 'x', stream: true });
      const events: string[] = [];
      for await (const event of stream) events.push(event.type);
      expect(events.slice(-3)).to.deep.equal(['response.output_text.delta', 'error', 'response.failed']);
    });

    it('makes the helper stream reject on the in-band error', async () => {
      const stream = clientAnswering(sseTextOf('stream-failure'), 'text/event-stream').responses.stream({ model: 'openai/gpt-4.1', input: 'x' });
      let failure: unknown;
      try {
        await stream.finalResponse();
      } catch (e) {
        failure = e;
      }
      expect(failure, 'finalResponse() rejects').to.not.equal(undefined);
    });
  });
});
