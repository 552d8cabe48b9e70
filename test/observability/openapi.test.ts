import { compileErrors, validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import { readRouteFiles } from '../validation/route-files.js';
import { startObserved, type ObservedGateway } from './support.js';

type Json = Record<string, any>;

describe('observability: OpenAPI document and docs page', () => {
  let gw: ObservedGateway;
  let doc: Json;
  before(async () => {
    gw = await startObserved();
    const res = await fetch(`${gw.url}/openapi.json`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = (await res.json()) as Json;
  });
  after(() => gw.close());

  describe('GET /openapi.json', () => {
    it('is a valid OpenAPI 3.1 document according to an OpenAPI parser', async () => {
      expect(doc.openapi).to.equal('3.1.0');
      const result = await validate(structuredClone(doc) as never);
      expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
    });

    it('describes every route file with its method, path parameters and summary', () => {
      const files = readRouteFiles();
      expect(files.length).to.be.greaterThan(15);
      for (const f of files) {
        // `{*rest}` (a pass-through route's wildcard) is the path parameter `rest`.
        const path = String(f.data.path).replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\{\*([A-Za-z_]+)\}/g, '{$1}');
        const methods = Array.isArray(f.data.method) ? f.data.method as string[] : [String(f.data.method)];
        for (const method of methods) {
          const op = doc.paths[path]?.[method.toLowerCase()];
          expect(op, `${method} ${path} (${f.name})`).to.be.an('object');
          expect(op.summary).to.equal(f.data.summary);
          const params = [...String(f.data.path).matchAll(/(?::|\{\*)([A-Za-z_]+)/g)].map((m) => m[1]);
          expect((op.parameters ?? []).map((p: Json) => p.name)).to.deep.equal(params);
        }
      }
    });

    it('uses the route files\' request schemas, with $defs moved to components', () => {
      const chat = doc.paths['/v1/chat/completions'].post;
      const schema = chat.requestBody.content['application/json'].schema;
      expect(schema.required).to.deep.equal(['model', 'messages']);
      expect(schema.properties.temperature).to.include({ type: 'number', minimum: 0, maximum: 2 });
      expect(schema.properties.messages.items.$ref).to.equal('#/components/schemas/chat-completions.chat_message');
      expect(doc.components.schemas['chat-completions.chat_message']).to.be.an('object');
      expect(JSON.stringify(doc)).not.to.include('#/$defs/');
    });

    it('lists one request body per accepted content type (JSON and multipart on /v1/files)', () => {
      const content = doc.paths['/v1/files'].post.requestBody.content;
      expect(Object.keys(content)).to.deep.equal(['application/json', 'multipart/form-data']);
      expect(content['application/json'].schema.required).to.deep.equal(['content_base64']);
      expect(content['multipart/form-data'].schema.properties).to.have.property('purpose');
    });

    it('names the auth scheme of each route: client key, admin key or none', () => {
      expect(doc.components.securitySchemes.apiKeyBearer).to.deep.include({ type: 'http', scheme: 'bearer' });
      expect(doc.components.securitySchemes.apiKeyHeader).to.deep.include({ type: 'apiKey', in: 'header', name: 'x-api-key' });
      expect(doc.paths['/v1/chat/completions'].post.security).to.deep.equal([{ apiKeyBearer: [] }, { apiKeyHeader: [] }]);
      expect(doc.paths['/metrics'].get.security).to.deep.equal([{ adminKeyBearer: [] }, { adminKeyHeader: [] }]);
      expect(doc.paths['/metrics'].get.responses).to.have.property('403');
      expect(doc.paths['/v1/models'].get.security).to.deep.equal([]);
      expect(doc.paths['/openapi.json'].get.security).to.deep.equal([]);
    });

    it('documents the error envelope of each route (SPEC 2.5 default, 2.6 for /v1/messages)', () => {
      const errorOf = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema.$ref;
      expect(errorOf('/v1/chat/completions', 'post', '400')).to.equal('#/components/schemas/Error');
      expect(errorOf('/v1/chat/completions', 'post', '401')).to.equal('#/components/schemas/Error');
      expect(errorOf('/v1/messages', 'post', '4XX')).to.equal('#/components/schemas/MessagesError');
      expect(doc.components.schemas.Error.properties.error.required).to.deep.equal(['message', 'type']);
      expect(doc.components.schemas.MessagesError.properties.type).to.deep.equal({ const: 'error' });
      expect(Object.keys(doc.paths['/v1/chat/completions'].post.responses[200].content)).to.deep.equal(['application/json', 'text/event-stream']);
    });
  });

  describe('GET /docs', () => {
    it('serves an HTML page that renders /openapi.json with Swagger UI files the gateway serves itself', async () => {
      const res = await fetch(`${gw.url}/docs`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const html = await res.text();
      expect(html).to.include("SwaggerUIBundle({ url: 'openapi.json'");
      expect(html).not.to.match(/https?:\/\//, 'no CDN or other origin is referenced');
      const script = /<script src="([^"]+)"/.exec(html)?.[1];
      const style = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1];
      expect([script, style]).to.deep.equal(['docs/assets/swagger-ui-bundle.js', 'docs/assets/swagger-ui.css']);
      const js = await fetch(new URL(script!, `${gw.url}/docs`));
      expect(js.status).to.equal(200);
      expect(js.headers.get('content-type')).to.match(/^application\/javascript/);
      const text = await js.text();
      expect(text.length).to.be.greaterThan(100_000);
      expect(text).to.include('SwaggerUIBundle');
      const css = await fetch(new URL(style!, `${gw.url}/docs`));
      expect(css.status).to.equal(200);
      expect(css.headers.get('content-type')).to.match(/^text\/css/);
    });

    it('sends /docs/ to /docs, where the page\'s relative asset URLs resolve', async () => {
      const res = await fetch(`${gw.url}/docs/`, { redirect: 'manual' });
      expect(res.status).to.equal(301);
      const target = new URL(res.headers.get('location')!, `${gw.url}/docs/`);
      expect(target.pathname).to.equal('/docs');
      const page = await fetch(`${gw.url}/docs/`);
      expect(page.url).to.equal(`${gw.url}/docs`);
      const style = /<link rel="stylesheet" href="([^"]+)"/.exec(await page.text())?.[1];
      expect((await fetch(new URL(style!, page.url))).status).to.equal(200);
    });

    it('serves only the page\'s own files from the package (404 in the envelope otherwise)', async () => {
      for (const name of ['package.json', '..%2F..%2Fpackage.json', 'index.html']) {
        const res = await fetch(`${gw.url}/docs/assets/${name}`);
        expect(res.status, name).to.equal(404);
        expect(((await res.json()) as { error: { type: string } }).error.type).to.equal('not_found_error');
      }
    });
  });
});
