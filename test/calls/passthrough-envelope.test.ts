import { expect } from 'chai';
import type { DialectTarget } from '../../src/codecs/codec.js';
import type { Conversation } from '../../src/codecs/internal.js';
import { dialects } from '../../src/compile/registry.js';
import { passthroughEnvelope } from '../../src/calls/passthrough.js';

// A request using every field a dialect could read: the envelope must not depend on any of them.
const full = (stream: boolean): Conversation => ({
  model: 'p/m',
  system: ['Be brief.'],
  messages: [
    { role: 'user', parts: [{ type: 'text', text: 'What is the weather in Paris?' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }] },
    { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'call_1', name: 'weather', content: '12C' }] },
  ],
  tools: [{ name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  toolChoice: { type: 'auto' },
  maxOutputTokens: 300,
  temperature: 0.3,
  topP: 0.9,
  stop: ['END'],
  reasoning: { effort: 'high', budgetTokens: 2048 },
  responseFormat: { type: 'json_object' },
  stream,
  includeUsage: stream,
  user: 'u-1',
});

const targets: DialectTarget[] = [
  { upstreamModel: 'model-a', supportedParameters: new Set(['temperature', 'top_p', 'stop', 'thinking', 'response_format', 'reasoning_effort']), options: {} },
  { upstreamModel: 'models/model-b', supportedParameters: new Set(), options: { anthropic_version: '2026-10-21', beta: ['tools-2026'], organization: 'org', project: 'prj' } },
];

describe('calls/passthrough-envelope', () => {
  for (const [name, dialect] of dialects) {
    for (const stream of [false, true]) {
      it(`${name}${stream ? ' (stream)' : ''}: the learned envelope is the one of a full request`, () => {
        for (const target of targets) {
          const encoded = dialect.encodeRequest(full(stream), target);
          const envelope = passthroughEnvelope(dialect, target, stream);
          expect(envelope.path).to.equal(encoded.path);
          expect(envelope.headers).to.deep.equal(encoded.headers);
          expect(envelope.streamOptions).to.deep.equal(encoded.body.stream_options);
          // Learned once: the same object on the next call.
          expect(passthroughEnvelope(dialect, target, stream)).to.equal(envelope);
        }
      });
    }
  }
});
