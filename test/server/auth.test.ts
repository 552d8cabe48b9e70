import { expect } from 'chai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const chatBody = JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }] });
const messagesBody = JSON.stringify({ model: 'sandbox/echo-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

describe('authentication', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { GATEWAY_API_KEYS: 'key-one,key-two' } }); });
  after(() => gw.close());

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  describe('missing or wrong key', () => {
    it('answers 401 missing_api_key in the default envelope', async () => {
      const res = await post('/v1/chat/completions', chatBody, {});
      expect(res.status).to.equal(401);
      const body = await res.json() as { error: { type: string; code: string; message: string } };
      expect(body.error.type).to.equal('authentication_error');
      expect(body.error.code).to.equal('missing_api_key');
    });
    it('answers 401 invalid_api_key for a wrong Bearer key', async () => {
      const res = await post('/v1/embeddings', '{}', { authorization: 'Bearer nope' });
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
    });
    it('answers 401 invalid_api_key for a wrong x-api-key', async () => {
      const res = await post('/v1/rerank', '{}', { 'x-api-key': 'nope' });
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
    });
    it('uses the messages envelope on /v1/messages', async () => {
      for (const headers of [{}, { 'x-api-key': 'wrong' }, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
        const res = await post('/v1/messages', messagesBody, headers);
        expect(res.status).to.equal(401);
        const body = await res.json() as { type: string; error: { type: string; message: string } };
        expect(body.type).to.equal('error');
        expect(body.error.type).to.equal('authentication_error');
        expect(body.error.message).to.be.a('string').and.not.equal('');
      }
    });
    it('checks the key before the body: a malformed body without a key is 401, not 400', async () => {
      const res = await post('/v1/chat/completions', '{not json', {});
      expect(res.status).to.equal(401);
    });
    it('never echoes the presented key', async () => {
      const res = await post('/v1/chat/completions', chatBody, { authorization: 'Bearer sk-secret-presented-key' });
      expect(await res.text()).to.not.include('sk-secret-presented-key');
    });
  });

  describe('valid key', () => {
    it('accepts Bearer and x-api-key interchangeably, with any configured key', async () => {
      for (const headers of [{ authorization: 'Bearer key-one' }, { 'x-api-key': 'key-two' }] as Array<Record<string, string>>) {
        const chat = await post('/v1/chat/completions', chatBody, headers);
        expect(chat.status).to.equal(200);
        const msg = await post('/v1/messages', messagesBody, headers);
        expect(msg.status).to.equal(200);
      }
    });
  });
});
