import { expect } from 'chai';
import { bedrockConverseDialect } from '../../../src/codecs/bedrock-converse/index.js';
import type { Conversation } from '../../../src/codecs/internal.js';

const MARKED: Conversation = {
  model: 'bedrock/x', stream: false,
  system: ['Shared rules.'], systemCache: { 0: { type: 'ephemeral' } },
  tools: [{ name: 'lookup', parameters: {}, cacheControl: { type: 'ephemeral', ttl: '1h' } }],
  messages: [
    { role: 'user', parts: [{ type: 'text', text: 'Doc.', cacheControl: { type: 'ephemeral' } }, { type: 'text', text: 'Question?' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'call 1', name: 'lookup', arguments: '{}' }] },
    // A marked tool result keeps its cache point when results move to the front of their turn.
    { role: 'user', parts: [{ type: 'text', text: 'And then?' }] },
    { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'call 1', content: 'found', cacheControl: { type: 'ephemeral' } }] },
  ],
};

const encode = (model: string) => bedrockConverseDialect.encodeRequest(MARKED, { upstreamModel: model, supportedParameters: new Set(['tools']), options: {} }).body as {
  system: unknown[]; messages: Array<{ role: string; content: unknown[] }>; toolConfig: { tools: unknown[] };
};

describe('codecs/bedrock-converse: prompt-cache breakpoints as cachePoint blocks', () => {
  it('Claude takes them in system, messages and tools, each right after its block (TTL kept)', () => {
    const body = encode('us.anthropic.claude-sonnet-5-5-v1:0');
    expect(body.system).to.deep.equal([{ text: 'Shared rules.' }, { cachePoint: { type: 'default' } }]);
    expect(body.toolConfig.tools[1]).to.deep.equal({ cachePoint: { type: 'default', ttl: '1h' } });
    expect(body.messages[0]!.content).to.deep.equal([{ text: 'Doc.' }, { cachePoint: { type: 'default' } }, { text: 'Question?' }]);
    expect(body.messages[2]!.content).to.deep.equal([
      { toolResult: { toolUseId: 'call_1', content: [{ text: 'found' }] } }, { cachePoint: { type: 'default' } }, { text: 'And then?' },
    ]);
  });

  it('Nova takes them in system and messages, not tools; other families take none', () => {
    const nova = encode('amazon.nova-pro-v1:0');
    expect(JSON.stringify(nova.system)).to.include('cachePoint');
    expect(JSON.stringify(nova.messages)).to.include('cachePoint');
    expect(JSON.stringify(nova.toolConfig.tools)).to.not.include('cachePoint');
    const llama = encode('meta.llama4-maverick-17b-instruct-v1:0');
    expect(JSON.stringify(llama)).to.not.include('cachePoint');
    expect(llama.messages[0]!.content).to.deep.equal([{ text: 'Doc.' }, { text: 'Question?' }]);
  });
});
