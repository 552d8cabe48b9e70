import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { anthropicClient, bootSandbox, openAiClient } from './helpers.js';

/** Runs a call that must fail and returns what it threw. */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  throw new Error('the call succeeded');
}

type OpenAiApiError = InstanceType<typeof OpenAI.APIError>;
/** The messages-format envelope (SPEC 2.6) as the Anthropic SDK keeps it in `error`. */
interface MessagesEnvelope { type: string; error: { type: string; message: string } }

describe('e2e sandbox: official SDK error classes', () => {
  let gw: TestGateway;
  before(async () => { gw = await bootSandbox(); });
  after(() => gw.close());

  describe('openai SDK', () => {
    it('raises AuthenticationError (401) for a wrong key on chat, responses and embeddings', async () => {
      const client = openAiClient(gw, 'sk-wrong-key');
      const calls = [
        () => client.chat.completions.create({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'x' }] }),
        () => client.responses.create({ model: 'sandbox/echo-1', input: 'x' }),
        () => client.embeddings.create({ model: 'sandbox/embed-1', input: 'x' }),
      ];
      for (const call of calls) {
        const e = await failure(call) as OpenAiApiError;
        expect(e).to.be.instanceOf(OpenAI.AuthenticationError);
        expect(e.status).to.equal(401);
        expect(e.type).to.equal('authentication_error');
        expect(e.code).to.equal('invalid_api_key');
        expect(e.message).to.not.include('sk-wrong-key');
      }
    });

    it('raises BadRequestError (400 model_not_found) for an unknown model', async () => {
      const e = await failure(() => openAiClient(gw).chat.completions.create({ model: 'sandbox/no-such-model', messages: [{ role: 'user', content: 'x' }] })) as OpenAiApiError;
      expect(e).to.be.instanceOf(OpenAI.BadRequestError);
      expect(e.code).to.equal('model_not_found');
      expect(e.message).to.include('sandbox/no-such-model');
    });

    it('raises BadRequestError (400 validation_failed) naming the field and the rule', async () => {
      const e = await failure(() => openAiClient(gw).chat.completions.create({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'x' }], temperature: 2.5 })) as OpenAiApiError;
      expect(e).to.be.instanceOf(OpenAI.BadRequestError);
      expect(e.code).to.equal('validation_failed');
      expect(e.message).to.include('temperature');
      const empty = await failure(() => openAiClient(gw).chat.completions.create({ model: 'sandbox/echo-1', messages: [] })) as OpenAiApiError;
      expect(empty).to.be.instanceOf(OpenAI.BadRequestError);
      expect(empty.message).to.include('messages');
    });

    it('raises BadRequestError (400 unsupported_operation) for a model that does not serve the endpoint', async () => {
      const e = await failure(() => openAiClient(gw).embeddings.create({ model: 'sandbox/echo-1', input: 'x' })) as OpenAiApiError;
      expect(e).to.be.instanceOf(OpenAI.BadRequestError);
      expect(e.code).to.equal('unsupported_operation');
    });

    it('raises NotFoundError (404 model_not_found) for an unknown model card', async () => {
      const e = await failure(() => openAiClient(gw).get('/models/sandbox/no-such-model')) as OpenAiApiError;
      expect(e).to.be.instanceOf(OpenAI.NotFoundError);
      expect(e.code).to.equal('model_not_found');
    });

    it('reads a model card with models.retrieve, which percent-encodes the slash of the id', async () => {
      const card = await openAiClient(gw).models.retrieve('sandbox/echo-1');
      expect(card.id).to.equal('sandbox/echo-1');
      expect(card.object).to.equal('model');
    });

    it('lists models with models.list', async () => {
      const ids: string[] = [];
      for await (const model of openAiClient(gw).models.list()) ids.push(model.id);
      expect(ids).to.include.members(['sandbox/echo-1', 'sandbox/embed-1', 'sandbox/image-1']);
    });
  });

  describe('@anthropic-ai/sdk', () => {
    it('raises AuthenticationError (401) with the messages envelope for a wrong key', async () => {
      const e = await failure(() => anthropicClient(gw, 'sk-ant-wrong').messages.create({ model: 'sandbox/echo-1', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] }));
      expect(e).to.be.instanceOf(Anthropic.AuthenticationError);
      const err = e as InstanceType<typeof Anthropic.AuthenticationError>;
      expect(err.status).to.equal(401);
      const body = err.error as MessagesEnvelope;
      expect(body.type).to.equal('error');
      expect(body.error.type).to.equal('authentication_error');
      expect(body.error.message).to.be.a('string').and.not.equal('');
    });

    it('raises BadRequestError (400) with the messages envelope for an unknown model', async () => {
      const e = await failure(() => anthropicClient(gw).messages.create({ model: 'sandbox/no-such-model', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] }));
      expect(e).to.be.instanceOf(Anthropic.BadRequestError);
      const body = (e as InstanceType<typeof Anthropic.BadRequestError>).error as MessagesEnvelope;
      expect(body.type).to.equal('error');
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message).to.include('sandbox/no-such-model');
    });

    it('raises BadRequestError (400) with the messages envelope for a schema violation', async () => {
      const e = await failure(() => anthropicClient(gw).messages.create({ model: 'sandbox/echo-1', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] }));
      expect(e).to.be.instanceOf(Anthropic.BadRequestError);
      const body = (e as InstanceType<typeof Anthropic.BadRequestError>).error as MessagesEnvelope;
      expect(body.type).to.equal('error');
      expect(body.error.message).to.include('max_tokens');
    });
  });
});
