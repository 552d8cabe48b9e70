import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';

const EMBED = 'openai/text-embedding-3-small';
const IMAGE = 'openai/gpt-image-2';

describe('e2e/routing: mapped operations (embeddings, images) go through the same routing loop', function () {
  this.timeout(30_000);
  let kit: KitUpstreams;
  let gw: TestGateway;
  let openai: OpenAI;

  before(async () => {
    kit = await startKitUpstreams();
    gw = await startScenarioGateway(kit, {
      providers: {
        openai: {
          upstreams: [
            { name: 'primary', weight: 1000 },
            { name: 'second', api_key_env: 'OPENAI_API_KEY_2', base_url_env: 'OPENAI_BASE_URL_2', weight: 0.001 },
          ],
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
  });
  beforeEach(() => kit.reset());
  afterEach(() => expect(kit.violations(), 'requests a provider would have refused').to.deep.equal([]));

  it('retries an embeddings 429 on the second deployment and bills once', async () => {
    kit.openai.enqueue({ status: 429, retryAfter: '0' });
    const { data, response } = await openai.embeddings.create({ model: EMBED, input: ['a', 'b'] }).withResponse();
    expect(data.data).to.have.length(2);
    expect(response.headers.get('x-gateway-attempts')).to.equal('2');
    expect(response.headers.get('x-gateway-fallback-reason')).to.equal('429');
    expect(response.headers.get('x-gateway-model')).to.equal(EMBED);
    expect(Number(response.headers.get('x-gateway-cost'))).to.be.greaterThan(0);
    expect(kit.openai2.requests[0]!.headers['x-request-id']).to.equal(response.headers.get('x-request-id'));
  });

  it('retries an image generation after a reset and a 503', async () => {
    kit.openai.enqueue({ reset: true });
    kit.openai2.enqueue({ status: 503 });
    const { data, response } = await openai.images.generate({ model: IMAGE, prompt: 'a red square' }).withResponse();
    expect(data.data![0]!.b64_json).to.be.a('string');
    expect(response.headers.get('x-gateway-attempts')).to.equal('3');
    expect(response.headers.get('x-gateway-fallback-reason')).to.equal('reset');
  });

  it('never retries an embeddings 400 and answers it', async () => {
    kit.openai.enqueue({ status: 400, message: 'bad input' });
    const err = await openai.embeddings.create({ model: EMBED, input: 'a' }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(err!.status).to.equal(400);
    expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(1);
  });

  it('times out a deployment that sends no headers and answers from the other one', async () => {
    kit.openai.enqueue({ hang: true });
    const { response } = await openai.embeddings.create({ model: EMBED, input: 'a' }).withResponse();
    expect(response.headers.get('x-gateway-fallback-reason')).to.equal('timeout');
    expect(kit.openai2.requests).to.have.length(1);
  });
});
