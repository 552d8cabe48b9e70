/**
 * The Open Responses acceptance suite (openresponses/openresponses `bin/compliance-test.ts`,
 * ported in ./support) against POST /v1/responses of the real gateway: the sandbox model, an
 * OpenAI chat-completions model and an Anthropic Messages model behind the kit's fake upstreams
 * (which also check that every request the gateway sends them is one the provider accepts).
 * Every response object and stream event is validated against the Open Responses OpenAPI
 * document (test/fixtures/openapi/openresponses.json, 2026-04-24) and every stream against the
 * specification's streaming state machine.
 */
import { expect } from 'chai';
import { cell, useTextGateway } from '../text/support/harness.js';
import { TEMPLATES } from './support/compliance-templates.js';
import { runTemplate } from './support/run-template.js';

/** The recorded upstream answer each turn of a template gets (text unless it is about tools). */
const FIXTURES: Record<string, string[]> = {
  'tool-calling': ['tool-call'],
  'tool-calling-streaming': ['tool-call'],
  'function-call-roundtrip': ['tool-call', 'tool-final'],
  'previous-response-id': ['text', 'text'],
};

const TARGETS: Array<{ label: string; model: string; dialect?: string }> = [
  { label: 'the sandbox model', model: 'sandbox/echo-1' },
  { label: 'an OpenAI-format model (chat completions upstream, translated)', model: 'openai/gpt-4.1-mini', dialect: 'openai-chat' },
  { label: 'an Anthropic-format model (Messages upstream, translated)', model: 'anthropic/claude-sonnet-5-5', dialect: 'anthropic-messages' },
];

describe('Open Responses acceptance suite against POST /v1/responses', () => {
  const h = useTextGateway();

  for (const target of TARGETS) {
    describe(target.label, () => {
      for (const template of TEMPLATES) {
        cell(h, `${template.id}: ${template.name}`, async () => {
          if (target.dialect) h.fakes.byDialect[target.dialect]!.enqueue(...(FIXTURES[template.id] ?? ['text']).map((fixture) => ({ fixture })));
          const result = await runTemplate(template, { baseUrl: `${h.gw.url}/v1`, apiKey: h.gw.key, model: target.model });
          expect(result.errors, JSON.stringify(result.responses).slice(0, 2000)).to.deep.equal([]);
          if (target.dialect) expect(h.fakes.byDialect[target.dialect]!.requests.length, 'upstream calls').to.equal((FIXTURES[template.id] ?? ['text']).length);
          // The attached PDF reaches the provider in its own file form (chat `file`, Anthropic `document`).
          if (target.dialect && template.id === 'file-input') expect(JSON.stringify(h.fakes.byDialect[target.dialect]!.last().body)).to.match(target.dialect === 'anthropic-messages' ? /"type":"document","source":\{"type":"base64","media_type":"application\/pdf","data":"JVBERi0x/ : /"type":"file","file":\{"filename":"openresponses-fixture.pdf","file_data":"data:application\/pdf;base64,JVBERi0x/);
        });
      }
    });
  }
});
