import path from 'node:path';
import { expect } from 'chai';
import { startGateway } from '../helpers/gateway.js';
import { ACCEPT_CASES, POST_ROUTES, RULE_CASES, VALID_BODIES } from './cases.js';
import { PNG_BASE64 } from './media.js';
import { createSandboxProject, type SandboxProject } from './sandbox-project.js';

/** What a test needs from a response: status, parsed JSON body (if any). */
interface Answer { status: number; body: Record<string, any> }

/** Error object of either envelope (default `{error}` or messages `{type:'error', error}`). */
function errorOf(a: Answer): Record<string, any> {
  return (a.body.error ?? {}) as Record<string, any>;
}

/**
 * Every request-validation rule of SPEC 4.2-4.16 and section 8 against the running gateway:
 * 400 naming the field in the route's envelope, auth before validation, malformed JSON, and a
 * positive control per route that a minimal valid body is not refused.
 */
describe('request validation (HTTP)', () => {
  let gateway: { url: string; key: string; close(): Promise<void> };
  let project: SandboxProject;

  before(async () => {
    project = createSandboxProject();
    gateway = await startGateway({ configPath: project.configPath, env: { GATEWAY_FILES_DIR: path.join(project.dir, 'files') } });
  });

  after(async () => {
    await gateway?.close();
    project?.remove();
  });

  /** POSTs raw text (default: JSON of body) with the key unless told otherwise. */
  async function post(route: string, body: unknown, opts: { key?: string | null; header?: 'bearer' | 'x-api-key'; raw?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const key = opts.key === undefined ? gateway.key : opts.key;
    if (key !== null) {
      if (opts.header === 'x-api-key') headers['x-api-key'] = key;
      else headers.authorization = `Bearer ${key}`;
    }
    const res = await fetch(gateway.url + route, { method: 'POST', headers, body: opts.raw ?? JSON.stringify(body) });
    return readAnswer(res);
  }

  async function readAnswer(res: Response): Promise<Answer> {
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('application/json')) return { status: res.status, body: (await res.json()) as Record<string, any> };
    await res.arrayBuffer(); // drain bytes or a stream so the socket is released
    return { status: res.status, body: {} };
  }

  /** Asserts the 400 validation answer of `route` names `field`. */
  function expectValidationError(route: string, a: Answer, field: string): void {
    expect(a.status, JSON.stringify(a.body)).to.equal(400);
    const err = errorOf(a);
    expect(err.type).to.equal('invalid_request_error');
    expect(err.message).to.be.a('string').and.include(field);
    if (route === '/v1/messages') {
      expect(a.body.type).to.equal('error');
    } else {
      expect(err.code).to.equal('validation_failed');
      expect(err.details?.errors).to.be.an('array').that.is.not.empty;
    }
  }

  describe('rule violations', () => {
    for (const c of RULE_CASES) {
      it(`answers 400 naming '${c.field}' on ${c.route} when ${c.rule}`, async () => {
        expectValidationError(c.route, await post(c.route, c.body), c.field);
      });
    }

    it('answers 400 when the body is JSON but not an object', async () => {
      const a = await post('/v1/chat/completions', [VALID_BODIES['/v1/chat/completions']]);
      expect(a.status).to.equal(400);
      expect(errorOf(a).type).to.equal('invalid_request_error');
    });

    it('validates after an x-api-key authentication on /v1/messages', async () => {
      const a = await post('/v1/messages', { ...VALID_BODIES['/v1/messages'], temperature: 1.5 }, { header: 'x-api-key' });
      expectValidationError('/v1/messages', a, 'temperature');
    });
  });

  describe('malformed JSON', () => {
    for (const route of POST_ROUTES) {
      it(`answers 400 malformed_json on ${route}`, async () => {
        const a = await post(route, undefined, { raw: '{"model": "sandbox/echo-1", ' });
        expect(a.status).to.equal(400);
        expect(errorOf(a).type).to.equal('invalid_request_error');
        if (route === '/v1/messages') expect(a.body.type).to.equal('error');
        else expect(errorOf(a).code).to.equal('malformed_json');
      });
    }
  });

  describe('authentication comes before validation', () => {
    for (const route of POST_ROUTES) {
      it(`answers 401 to an invalid body without a key on ${route}`, async () => {
        const a = await post(route, { not: 'valid' }, { key: null });
        expect(a.status).to.equal(401);
        expect(errorOf(a).message).to.be.a('string');
        if (route === '/v1/messages') expect(a.body.type).to.equal('error');
      });

      it(`answers 401 to an invalid body with a wrong key on ${route}`, async () => {
        const a = await post(route, { not: 'valid' }, { key: 'wrong-key' });
        expect(a.status).to.equal(401);
      });
    }
  });

  describe('positive controls', () => {
    for (const route of POST_ROUTES) {
      it(`does not refuse the minimal valid body of ${route}`, async () => {
        const a = await post(route, VALID_BODIES[route]);
        expect(a.status, JSON.stringify(a.body)).to.not.equal(400);
        expect(a.status, JSON.stringify(a.body)).to.be.below(300);
      });
    }

    for (const c of ACCEPT_CASES) {
      it(`passes validation on ${c.route} when ${c.rule}`, async () => {
        const a = await post(c.route, c.body);
        expect(errorOf(a).code, JSON.stringify(a.body)).to.not.equal('validation_failed');
      });
    }
  });

  describe('GET routes', () => {
    it('serves GET /v1/models and GET /v1/models/:provider/:model without a key', async () => {
      const list = await readAnswer(await fetch(`${gateway.url}/v1/models`));
      expect(list.status).to.equal(200);
      expect(list.body.object).to.equal('list');
      const card = await readAnswer(await fetch(`${gateway.url}/v1/models/sandbox/echo-1`));
      expect(card.status).to.equal(200);
      expect(card.body.id).to.equal('sandbox/echo-1');
    });

    it('asks for a key on GET /v1/video/generations/:id', async () => {
      const a = await readAnswer(await fetch(`${gateway.url}/v1/video/generations/job-1`));
      expect(a.status).to.equal(401);
    });
  });

  describe('POST /v1/files multipart', () => {
    async function upload(fields: Record<string, string>, withFile = true): Promise<Answer> {
      const form = new FormData();
      if (withFile) form.append('file', new Blob([Buffer.from(PNG_BASE64, 'base64')], { type: 'image/png' }), 'dot.png');
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      const res = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${gateway.key}` }, body: form });
      return readAnswer(res);
    }

    it('accepts a file with the documented parts', async () => {
      const a = await upload({ purpose: 'vision_reference' });
      expect(a.status, JSON.stringify(a.body)).to.be.below(300);
    });

    it('answers 400 naming purpose when purpose is not allowed', async () => {
      expectValidationError('/v1/files', await upload({ purpose: 'fine-tune' }), 'purpose');
    });

    it('answers 400 naming provider when provider is empty', async () => {
      expectValidationError('/v1/files', await upload({ provider: '' }), 'provider');
    });

    it('answers 400 naming an unknown part', async () => {
      expectValidationError('/v1/files', await upload({ expires_after: '3600' }), 'expires_after');
    });

    it('answers 400 when the file part is missing', async () => {
      const a = await upload({ purpose: 'user_upload' }, false);
      expect(a.status).to.equal(400);
      expect(errorOf(a).type).to.equal('invalid_request_error');
      expect(errorOf(a).message).to.include('file');
    });
  });
});
