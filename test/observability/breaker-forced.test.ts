import { expect } from 'chai';
import type { KitUpstream } from '../kit/fake-upstream.js';
import { ACME_MODEL, ADMIN_KEY, CLIENT_KEY, startAcmeUpstream, startObserved, type ObservedGateway } from './support.js';

// Issue 27: a call sent through an open breaker (every target left was open) is visible in the
// access log (`breaker_forced`) and in gateway_breaker_forced_total.
describe('observability: calls through an open breaker', () => {
  let fake: KitUpstream;
  let gw: ObservedGateway;
  before(async () => {
    fake = await startAcmeUpstream();
    // One failure opens the breaker; one try per call.
    gw = await startObserved({ fake, env: { GATEWAY_BREAKER_FAILURES: '1', GATEWAY_RETRY_ATTEMPTS: '1' } });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  const chat = (id: string) => fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json', 'x-request-id': id },
    body: JSON.stringify({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });

  it('marks the access log line and counts the call by provider, upstream and model', async () => {
    fake.enqueue({ status: 500 });
    expect((await chat('obs-forced-1')).status).to.equal(502);
    expect((await gw.requestLine('obs-forced-1')).breaker_forced, 'a closed breaker: no mark').to.equal(undefined);

    const res = await chat('obs-forced-2');
    expect(res.status, 'the only target is open: the call goes through it, and the upstream answers').to.equal(200);
    expect(await gw.requestLine('obs-forced-2')).to.deep.include({ status: 200, breaker_forced: true, model: ACME_MODEL });

    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
    expect(metrics).to.include(`gateway_breaker_forced_total{provider="acme",upstream="default",model="${ACME_MODEL}"} 1`);
    expect(metrics, 'its success closed the breaker').to.include('gateway_breaker_state{provider="acme",upstream="default"} 0');
  });
});
