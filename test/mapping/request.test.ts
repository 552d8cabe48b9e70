import { expect } from 'chai';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { MediaValue } from '../../src/mapping/media.js';
import { compileRequest } from '../../src/mapping/request.js';
import { encodeMultipart } from '../../src/mapping/send.js';
import type { OperationMapping } from '../../src/mapping/types.js';
import { parseMultipart } from '../kit/multipart.js';
import { Readable } from 'node:stream';
import { makeCall } from './helpers.js';

describe('mapping/request', () => {
  describe('#compileRequest', () => {
    it('builds URL, query and headers from templates, with the key as Bearer by default', async () => {
      const mapping: OperationMapping = { transport: 'json', path: '/v1/text-to-speech/{voice:-default-voice}', query: { output_format: { from: 'response_format', default: 'mp3', map: { mp3: 'mp3_44100_128' } } }, headers: { 'X-Trace': 'gw-{model}' } };
      const built = await compileRequest(mapping, ['m'], {}).build(makeCall({ input: 'x' }, { baseUrl: 'https://api.el.test' }));
      expect(built.url).to.equal('https://api.el.test/v1/text-to-speech/default-voice?output_format=mp3_44100_128');
      expect(built.method).to.equal('POST');
      expect(built.headers).to.deep.equal({ authorization: 'Bearer k-123', 'x-trace': 'gw-acme/model-1' });
      expect(built.body).to.equal(undefined);
    });

    it('escapes path values but keeps slashes and colons (Google operation names)', async () => {
      const built = await compileRequest({ transport: 'json', path: '/v1beta/{name}:x/{voice}' }, ['m'], {}).build(makeCall({ name: 'models/veo/operations/op 1', voice: 'a?b' }, { baseUrl: 'https://g.test' }));
      expect(built.url).to.equal('https://g.test/v1beta/models/veo/operations/op%201:x/a%3Fb');
    });

    it('refuses a call whose path needs a missing field', async () => {
      try {
        await compileRequest({ transport: 'json', path: '/voices/{voice}' }, ['m'], {}).build(makeCall({}));
        expect.fail('should refuse');
      } catch (e) {
        expect((e as GatewayError).code).to.equal('missing_field');
        expect((e as GatewayError).message).to.contain("'voice' is required");
      }
    });

    it('passes the client body through without model, gateway-only, dropped and re-mapped fields', async () => {
      const mapping: OperationMapping = {
        transport: 'json',
        path: '/embeddings',
        request: { passthrough: true, drop: ['truncation'], body: { model: '{upstream_model}', dimensions: { from: ['dimensions', 'output_dimension'] } } },
      };
      const built = await compileRequest(mapping, ['m'], {}).build(makeCall({ model: 'acme/model-1', input: ['a'], output_dimension: 4, truncation: true, max_budget_usd: 1, user: 'u1' }));
      expect(built.body).to.deep.equal({ input: ['a'], user: 'u1', model: 'model-one', dimensions: 4 });
    });

    it('sends the key the way the mapping says: header, query, none, or the provider type\'s own', async () => {
      const call = makeCall({});
      const header = await compileRequest({ transport: 'json', path: '/x', auth: { header: 'xi-api-key' } }, ['m'], {}).build(call);
      expect(header.headers).to.deep.equal({ 'xi-api-key': 'k-123' });
      const query = await compileRequest({ transport: 'json', path: '/x', auth: { query: 'key' } }, ['m'], {}).build(call);
      expect(query.url).to.equal('https://api.acme.test/v1/x?key=k-123');
      expect(query.headers).to.deep.equal({});
      const none = await compileRequest({ transport: 'json', path: '/x', auth: 'none' }, ['m'], {}).build(call);
      expect(none.headers).to.deep.equal({});
      const dialect = await compileRequest({ transport: 'json', path: '/x' }, ['m'], { defaultAuth: (key) => ({ 'x-goog-api-key': key }) }).build(call);
      expect(dialect.headers).to.deep.equal({ 'x-goog-api-key': 'k-123' });
      const withProviderHeaders = await compileRequest({ transport: 'json', path: '/x' }, ['m'], {}).build(makeCall({}, { provider: { type: 'http', headers: { 'x-org': 'o1' } } }));
      expect(withProviderHeaders.headers).to.deep.equal({ 'x-org': 'o1', authorization: 'Bearer k-123' });
    });

    it('refuses to build a call for a provider without a base URL', async () => {
      const call = { ...makeCall({}), baseUrl: undefined };
      try {
        await compileRequest({ transport: 'json', path: '/x' }, ['m'], {}).build(call);
        expect.fail('should refuse');
      } catch (e) {
        expect((e as GatewayError).code).to.equal('provider_not_configured');
      }
    });
  });

  describe('#encodeMultipart', () => {
    it('builds a body a real multipart parser reads back: files, key[] arrays, key[sub] objects, numbers', async () => {
      const a = new MediaValue(Buffer.from([1, 2, 3]), 'image/png', 'a.png');
      const b = new MediaValue(Buffer.from('second file'), 'text/plain', 'b.txt');
      const form = await encodeMultipart({ model: 'm', n: 2, stream: false, image: [a, b], expires_after: { anchor: 'created_at', seconds: 3600 }, skipped: undefined, empty: null });
      expect(form.contentType).to.match(/^multipart\/form-data; boundary=/);
      const parsed = await parseMultipart(Readable.from([Buffer.from(form.bytes)]), { 'content-type': form.contentType, 'content-length': String(form.bytes.byteLength) });
      expect(parsed.fields).to.deep.equal({ model: ['m'], n: ['2'], stream: ['false'], 'expires_after[anchor]': ['created_at'], 'expires_after[seconds]': ['3600'] });
      expect(parsed.files.map((f) => [f.field, f.filename, f.mimetype, f.bytes.toString('hex')])).to.deep.equal([
        ['image[]', 'a.png', 'image/png', '010203'],
        ['image[]', 'b.txt', 'text/plain', Buffer.from('second file').toString('hex')],
      ]);
    });

    it('repeats plain keys when asked', async () => {
      const form = await encodeMultipart({ tag: ['x', 'y'] }, 'repeat');
      const parsed = await parseMultipart(Readable.from([Buffer.from(form.bytes)]), { 'content-type': form.contentType, 'content-length': String(form.bytes.byteLength) });
      expect(parsed.fields).to.deep.equal({ tag: ['x', 'y'] });
    });
  });
});
