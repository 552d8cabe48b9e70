import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createMediaFetcher } from '../../../src/upstream/fetch-media.js';
import { makePng } from '../../kit/providers/media-bytes.js';
import { startMediaHost, type MediaHost } from '../../kit/providers/media-host.js';
import { startProviderRig, type ProviderRig } from './setup.js';

/** The GatewayError a fetch fails with (or a failure when it succeeds). */
async function refusal(fetching: Promise<unknown>): Promise<GatewayError> {
  try {
    await fetching;
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    return e as GatewayError;
  }
  throw new Error('the fetch was not refused');
}

describe('e2e/providers/fetch-media (fetching on a client\'s behalf)', () => {
  let media: MediaHost;
  before(async () => {
    media = await startMediaHost({
      '/big': () => ({ headers: { 'content-type': 'image/png', 'content-length': '5000' }, body: Buffer.alloc(5000) }),
      '/big-chunked': () => ({ headers: { 'content-type': 'image/png' }, chunks: [Buffer.alloc(800), Buffer.alloc(800)] }),
      '/slow': async () => {
        await new Promise((r) => setTimeout(r, 1500));
        return { body: 'late' };
      },
      '/redirect': () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }),
      '*': () => ({ headers: { 'content-type': 'image/png' }, body: makePng() }),
    });
  });
  after(async () => { await media.close(); });

  describe('#createMediaFetcher', () => {
    const strict = createMediaFetcher({ allowPrivate: false, maxBytes: 1000, timeoutMs: 300 });
    const lenient = createMediaFetcher({ allowPrivate: true, maxBytes: 1000, timeoutMs: 300 });
    const signal = new AbortController().signal;

    for (const url of [
      'http://127.0.0.1:9/x.png', 'http://localhost/x.png', 'http://api.localhost/x.png', 'http://[::1]/x.png', 'http://[::ffff:127.0.0.1]/x.png',
      'http://10.1.2.3/x.png', 'http://172.16.0.9/x.png', 'http://192.168.0.1/x.png', 'http://100.64.0.1/x.png',
      'http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/x.png', 'http://[fd00::1]/x.png', 'http://0.0.0.0/x.png',
    ]) {
      it(`refuses ${url} with 400 url_not_allowed`, async () => {
        const e = await refusal(strict(url, signal));
        expect(e.status).to.equal(400);
        expect(e.code).to.equal('url_not_allowed');
      });
    }

    for (const url of ['file:///etc/passwd', 'ftp://example.com/a.png', 'gopher://example.com/', 'not a url']) {
      it(`refuses ${url} with 400 invalid_url`, async () => {
        const e = await refusal(strict(url, signal));
        expect(e.status).to.equal(400);
        expect(e.code).to.equal('invalid_url');
      });
    }

    it('fetches a loopback URL only when the operator allows private targets', async () => {
      const got = await lenient(`${media.url}/ok.png`, signal);
      expect(Buffer.from(got.bytes).equals(makePng())).to.equal(true);
      expect(got.contentType).to.equal('image/png');
    });

    it('refuses a body larger than the limit, declared or streamed', async () => {
      expect((await refusal(lenient(`${media.url}/big`, signal))).code).to.equal('fetch_too_large');
      expect((await refusal(lenient(`${media.url}/big-chunked`, signal))).code).to.equal('fetch_too_large');
    });

    it('gives up after the time limit', async () => {
      const started = Date.now();
      const e = await refusal(lenient(`${media.url}/slow`, signal));
      expect(e.code).to.equal('fetch_timeout');
      expect(Date.now() - started).to.be.below(1200);
    });

    it('does not follow redirects (a redirect to the metadata address is refused)', async () => {
      const e = await refusal(lenient(`${media.url}/redirect`, signal));
      expect(e.code).to.equal('fetch_failed');
      expect(e.message).to.contain('302');
    });
  });

  describe('through the gateway (default config: private targets refused)', () => {
    let rig: ProviderRig;
    before(async () => { rig = await startProviderRig(); });
    after(async () => { await rig.close(); });
    afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

    it('refuses a loopback image URL in an edit before any fetch or upstream call', async () => {
      const before = { media: media.requests.length, openai: rig.openai.requests.length };
      const res = await rig.post('/v1/images/edits', { model: 'openai/gpt-image-2', prompt: 'x', image: `${media.url}/ok.png` });
      expect(res.status).to.equal(400);
      expect(res.json.error).to.deep.include({ code: 'url_not_allowed', type: 'invalid_request_error' });
      expect(media.requests.length).to.equal(before.media);
      expect(rig.openai.requests.length).to.equal(before.openai);
    });

    it('refuses the cloud metadata address as a video reference', async () => {
      const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4, image_url: 'http://169.254.169.254/latest/meta-data/' });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('url_not_allowed');
    });

    it('refuses non-http(s) image URLs', async () => {
      const res = await rig.post('/v1/images/edits', { model: 'google/gemini-nano-banana-2.1', prompt: 'x', image: 'file:///etc/passwd' });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('invalid_url');
    });
  });
});
