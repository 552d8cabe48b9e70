/**
 * The fake upstreams themselves: documented example requests pass their validators (so they are
 * not stricter than the providers), requests a provider rejects are refused with a 400 in that
 * provider's error format and recorded as violations, and a wrong key is refused.
 */
import { expect } from 'chai';
import { FAKE_KEYS, startTextDeployments, type TextDeployments } from '../../kit/text-deployments.js';

type Obj = Record<string, unknown>;

describe('text fakes (the kit\'s text deployments)', () => {
  let fakes: TextDeployments;
  before(async () => {
    fakes = await startTextDeployments();
  });
  after(async () => {
    await fakes.close();
  });
  beforeEach(() => fakes.reset());

  const post = async (base: string, path: string, headers: Record<string, string>, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Obj };
  };
  const openai = { authorization: `Bearer ${FAKE_KEYS.openai}` };
  const anthropic = { 'x-api-key': FAKE_KEYS.anthropic, 'anthropic-version': '2023-06-01' };
  const gemini = { 'x-goog-api-key': FAKE_KEYS.gemini };
  const openAiBase = () => fakes.env.OPENAI_BASE_URL!;

  describe('accepts documented requests', () => {
    it('accepts a chat completion with tools, an image and a tool result', async () => {
      const r = await post(openAiBase(), '/chat/completions', openai, {
        model: 'gpt-4.1-mini',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'auto' } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
        parallel_tool_calls: false, max_completion_tokens: 100,
      });
      expect(r.status).to.equal(200);
      expect(fakes.violations()).to.deep.equal([]);
    });

    it('accepts a responses request with function_call items and reasoning', async () => {
      const r = await post(openAiBase(), '/responses', openai, {
        model: 'gpt-6.2-sol', instructions: 'Be brief.', store: false, include: ['reasoning.encrypted_content'],
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' },
          { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'done' },
        ],
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }],
      });
      expect(r.status).to.equal(200);
      expect(fakes.violations()).to.deep.equal([]);
    });

    it('accepts a messages request with thinking, tool use and an image URL', async () => {
      const r = await post(fakes.env.ANTHROPIC_BASE_URL!, '/v1/messages', anthropic, {
        model: 'claude-sonnet-5-5', max_tokens: 4096, system: 'Be brief.', thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 'sig' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
        ],
        tools: [{ name: 'f', input_schema: { type: 'object', properties: {} } }], tool_choice: { type: 'auto' },
      });
      expect(r.status).to.equal(200);
      expect(fakes.violations()).to.deep.equal([]);
    });

    it('accepts a Gemini request with a signed function call and its response', async () => {
      const r = await post(fakes.env.GEMINI_BASE_URL!, '/v1beta/models/gemini-3.8-flash:generateContent', gemini, {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2ln' }] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'done' } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object' } }] }],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true } },
      });
      expect(r.status).to.equal(200);
      expect(fakes.violations()).to.deep.equal([]);
    });
  });

  describe('refuses what the provider refuses, in its own format', () => {
    const cases: Array<{ name: string; send: () => ReturnType<typeof post>; check: (body: Obj) => void; status?: number }> = [
      {
        name: 'chat: messages missing',
        send: () => post(openAiBase(), '/chat/completions', openai, { model: 'gpt-4.1-mini' }),
        check: (b) => expect((b.error as Obj).type).to.equal('invalid_request_error'),
      },
      {
        name: 'chat: wrong key (401)',
        send: () => post(openAiBase(), '/chat/completions', { authorization: 'Bearer test-key-0123456789' }, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
        check: (b) => expect((b.error as Obj).code).to.equal('invalid_api_key'),
        status: 401,
      },
      {
        name: 'responses: tool_choice of an unknown shape',
        send: () => post(openAiBase(), '/responses', openai, { model: 'gpt-6.2-sol', input: 'hi', tool_choice: { type: 'bogus' } }),
        check: (b) => expect((b.error as Obj).message).to.match(/provider schema/),
      },
      {
        name: 'messages: an empty text block',
        send: () => post(fakes.env.ANTHROPIC_BASE_URL!, '/v1/messages', anthropic, { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }),
        check: (b) => expect(b).to.deep.include({ type: 'error' }),
      },
      {
        name: 'messages: max_tokens missing',
        send: () => post(fakes.env.ANTHROPIC_BASE_URL!, '/v1/messages', anthropic, { model: 'c', messages: [{ role: 'user', content: 'hi' }] }),
        check: (b) => expect((b.error as Obj).type).to.equal('invalid_request_error'),
      },
      {
        name: 'messages: anthropic-version missing',
        send: () => post(fakes.env.ANTHROPIC_BASE_URL!, '/v1/messages', { 'x-api-key': FAKE_KEYS.anthropic }, { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        check: (b) => expect((b.error as Obj).message).to.match(/anthropic-version/),
      },
      {
        name: 'messages: temperature under 2026-10-21',
        send: () => post(fakes.env.ANTHROPIC_BASE_URL!, '/v1/messages', { ...anthropic, 'anthropic-version': '2026-10-21' }, { model: 'c', max_tokens: 10, temperature: 0.5, messages: [{ role: 'user', content: 'hi' }] }),
        check: (b) => expect((b.error as Obj).message).to.match(/temperature/),
      },
      {
        name: 'gemini: role assistant',
        send: () => post(fakes.env.GEMINI_BASE_URL!, '/v1beta/models/gemini-3.8-flash:generateContent', gemini, { contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }),
        check: (b) => expect((b.error as Obj).status).to.equal('INVALID_ARGUMENT'),
      },
      {
        name: 'gemini 3: a function call without its thought signature',
        send: () => post(fakes.env.GEMINI_BASE_URL!, '/v1beta/models/gemini-3.8-flash:generateContent', gemini, {
          contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 'x' } } }] }],
        }),
        check: (b) => expect((b.error as Obj).message).to.match(/thought_signature/),
      },
      {
        name: 'gemini: thinkingLevel and thinkingBudget together',
        send: () => post(fakes.env.GEMINI_BASE_URL!, '/v1beta/models/gemini-3.8-flash:generateContent', gemini, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingLevel: 'LOW', thinkingBudget: 100 } } }),
        check: (b) => expect((b.error as Obj).code).to.equal(400),
      },
      {
        name: 'gemini: streamGenerateContent without alt=sse',
        send: () => post(fakes.env.GEMINI_BASE_URL!, '/v1beta/models/gemini-3.8-flash:streamGenerateContent', gemini, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
        check: (b) => expect((b.error as Obj).message).to.match(/alt=sse/),
      },
    ];
    for (const c of cases) {
      it(`refuses ${c.name}`, async () => {
        const r = await c.send();
        expect(r.status).to.equal(c.status ?? 400);
        c.check(r.body);
        expect(fakes.violations(), 'recorded so the test that caused it fails').to.have.length(1);
      });
    }

    it('records requests to a path no fake serves', async () => {
      const r = await post(openAiBase(), '/completions', openai, { model: 'm', prompt: 'hi' });
      expect(r.status).to.equal(404);
      expect(fakes.violations()).to.deep.equal(['openai: unrouted POST /v1/completions']);
    });
  });
});
