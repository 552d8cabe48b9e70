/**
 * Stored responses on an OpenAI Responses upstream (same-format passthrough): a response the
 * gateway stored is expanded locally, so the upstream receives the whole conversation; an id the
 * gateway never stored (one OpenAI issued for a stream it kept itself) is left for the upstream.
 */
import { expect } from 'chai';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { TEXT_QUESTION } from './support/scenario.js';

type Obj = Record<string, unknown>;
const MODEL = 'openai-responses/gpt-6.2-sol';

describe('stored responses on an OpenAI Responses upstream', () => {
  const h = useTextGateway();

  cell(h, 'a stored previous response is expanded: the upstream gets its items, no previous_response_id', async () => {
    h.fakes.responses.enqueue({ fixture: 'text' }, { fixture: 'text' });
    const client = makeOpenAiClient(h.gw);
    const first = await client.responses.create({ model: MODEL, input: TEXT_QUESTION });
    await client.responses.create({ model: MODEL, previous_response_id: first.id, input: 'And of Spain?' });
    const body = h.fakes.responses.requests[1]!.body;
    expect(body).to.not.have.property('previous_response_id');
    const input = body.input as Obj[];
    expect(JSON.stringify(input[0])).to.include(TEXT_QUESTION);
    expect(input.some((item) => item.type === 'message' && item.role === 'assistant'), 'the first answer').to.equal(true);
    expect(JSON.stringify(input.at(-1))).to.include('And of Spain?');
  });

  cell(h, 'an id the gateway never stored is forwarded for the upstream to resolve', async () => {
    h.fakes.responses.enqueue({ fixture: 'text' });
    await makeOpenAiClient(h.gw).responses.create({ model: MODEL, previous_response_id: 'resp_upstream_only_123', input: 'continue' });
    expect(h.fakes.responses.last().body.previous_response_id).to.equal('resp_upstream_only_123');
  });
});
