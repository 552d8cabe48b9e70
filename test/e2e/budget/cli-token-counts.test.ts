import { expect } from 'chai';
import { freePort } from '../../helpers/free-port.js';
import { awayFromMinuteEdge, errorCode, post } from './support/client.js';
import { spawnGateway, type GatewayProcess } from './support/process.js';
import { newKey, writeProject, type TestKey } from './support/project.js';

/**
 * The built CLI (dist/src/cli/main.js, the bundle of scripts/build.js) counts prompt tokens with
 * the o200k_base worker thread. Were the worker not found from the bundle, counts would fall back
 * to UTF-8 bytes: the prompt below is 1,200 bytes but ~230 tokens (worst case, with framing), so
 * a key with tpm 600 admits it twice in a minute only when the real tokenizer counts it (one call
 * is charged at most the whole limit, so a single call would pass either way).
 */
describe('e2e/budget: the CLI counts tokens with the BPE worker (tpm key)', function () {
  this.timeout(60_000);
  const plain: TestKey = { key: newKey('plain'), name: 'plain' };
  const tpm: TestKey = { key: newKey('tpm'), name: 'tpm-600', tpm: 600 };
  let gw: GatewayProcess;

  before(async () => {
    const port = await freePort();
    gw = await spawnGateway(writeProject({ keys: [plain, tpm], port }), port, plain.key);
  });
  after(() => gw?.stop());

  it('admits a prompt of ~230 tokens in 1,200 bytes twice, then refuses the call that passes the minute\'s 600 tokens', async () => {
    await awayFromMinuteEdge();
    const body = (content: string) => ({ model: 'sandbox/echo-1', max_tokens: 5, messages: [{ role: 'user', content }] });
    const small = 'hello '.repeat(200);
    expect(Buffer.byteLength(small)).to.equal(1200);
    for (let i = 0; i < 2; i++) {
      const ok = await post(`${gw.url}/v1/chat/completions`, tpm.key, body(small));
      expect(ok.status, ok.text).to.equal(200);
    }
    // About 1,000 tokens: more than the minute has left.
    const large = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
    const second = await post(`${gw.url}/v1/chat/completions`, tpm.key, body(large));
    expect(second.status, second.text).to.equal(429);
    expect(errorCode(second.json)).to.equal('rate_limit_exceeded');
  });
});
