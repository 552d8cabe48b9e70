import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ROUTE_META_SCHEMA, createEngineAjv, readRouteFiles, type RouteFile } from './route-files.js';

/** SPEC 4.1 (plus the documented poll extension): file -> what the route must declare. */
const EXPECTED: Record<string, { method: string; path: string; auth: string; handler: string; operation: string; surface?: string; stream?: boolean }> = {
  'chat-completions.yaml': { method: 'POST', path: '/v1/chat/completions', auth: 'key', handler: 'model-call', operation: 'chat.completions', surface: 'openai-chat', stream: true },
  'messages.yaml': { method: 'POST', path: '/v1/messages', auth: 'key', handler: 'model-call', operation: 'messages', surface: 'anthropic-messages', stream: true },
  'responses.yaml': { method: 'POST', path: '/v1/responses', auth: 'key', handler: 'model-call', operation: 'responses', surface: 'openai-responses', stream: true },
  'images-generations.yaml': { method: 'POST', path: '/v1/images/generations', auth: 'key', handler: 'model-call', operation: 'images.generations' },
  'images-edits.yaml': { method: 'POST', path: '/v1/images/edits', auth: 'key', handler: 'model-call', operation: 'images.edits' },
  'audio-speech.yaml': { method: 'POST', path: '/v1/audio/speech', auth: 'key', handler: 'model-call', operation: 'audio.speech' },
  'audio-music.yaml': { method: 'POST', path: '/v1/audio/music', auth: 'key', handler: 'model-call', operation: 'audio.music' },
  'audio-transcriptions.yaml': { method: 'POST', path: '/v1/audio/transcriptions', auth: 'key', handler: 'model-call', operation: 'audio.transcriptions' },
  'research-runs.yaml': { method: 'POST', path: '/v1/research/runs', auth: 'key', handler: 'model-call', operation: 'research.runs', surface: 'research' },
  'robotics-sessions.yaml': { method: 'POST', path: '/v1/robotics/sessions', auth: 'key', handler: 'model-call', operation: 'robotics.sessions', surface: 'robotics' },
  'embeddings.yaml': { method: 'POST', path: '/v1/embeddings', auth: 'key', handler: 'model-call', operation: 'embeddings' },
  'rerank.yaml': { method: 'POST', path: '/v1/rerank', auth: 'key', handler: 'model-call', operation: 'rerank' },
  'video-generations.yaml': { method: 'POST', path: '/v1/video/generations', auth: 'key', handler: 'model-call', operation: 'video.generations' },
  'realtime-sessions.yaml': { method: 'POST', path: '/v1/realtime/sessions', auth: 'key', handler: 'model-call', operation: 'realtime.sessions' },
  'files.yaml': { method: 'POST', path: '/v1/files', auth: 'key', handler: 'upload-file', operation: 'files' },
  'models-list.yaml': { method: 'GET', path: '/v1/models', auth: 'none', handler: 'list-models', operation: 'models.list' },
  'models-get.yaml': { method: 'GET', path: '/v1/models/:provider/:model', auth: 'none', handler: 'get-model', operation: 'models.get' },
  'video-generations-get.yaml': { method: 'GET', path: '/v1/video/generations/:id', auth: 'key', handler: 'poll-job', operation: 'video.generations.poll' },
  'health.yaml': { method: 'GET', path: '/healthz', auth: 'none', handler: 'health', operation: 'health' },
  'readyz.yaml': { method: 'GET', path: '/readyz', auth: 'none', handler: 'readiness', operation: 'readiness' },
  'responses-get.yaml': { method: 'GET', path: '/v1/responses/:id', auth: 'key', handler: 'get-response', operation: 'responses.get' },
  'responses-compact.yaml': { method: 'POST', path: '/v1/responses/compact', auth: 'key', handler: 'model-call', operation: 'responses.compact' },
  'metrics.yaml': { method: 'GET', path: '/metrics', auth: 'admin', handler: 'metrics', operation: 'metrics' },
  'openapi.yaml': { method: 'GET', path: '/openapi.json', auth: 'none', handler: 'openapi', operation: 'openapi' },
  'docs.yaml': { method: 'GET', path: '/docs', auth: 'none', handler: 'docs', operation: 'docs' },
  'docs-assets.yaml': { method: 'GET', path: '/docs/assets/:file', auth: 'none', handler: 'docs-asset', operation: 'docs' },
  'files-list.yaml': { method: 'GET', path: '/v1/files', auth: 'key', handler: 'list-files', operation: 'files.list' },
  'files-get.yaml': { method: 'GET', path: '/v1/files/:id', auth: 'key', handler: 'get-file', operation: 'files.retrieve' },
  'files-content.yaml': { method: 'GET', path: '/v1/files/:id/content', auth: 'key', handler: 'get-file-content', operation: 'files.content' },
  'files-delete.yaml': { method: 'DELETE', path: '/v1/files/:id', auth: 'key', handler: 'delete-file', operation: 'files.delete' },
  // Usage ledger, admin API and dashboard (README "Usage and keys").
  'usage.yaml': { method: 'GET', path: '/v1/usage', auth: 'admin-or-key', handler: 'usage-report', operation: 'usage' },
  'ui.yaml': { method: 'GET', path: '/ui', auth: 'none', handler: 'dashboard', operation: 'ui' },
  'ui-asset.yaml': { method: 'GET', path: '/ui/:file', auth: 'none', handler: 'dashboard', operation: 'ui' },
  'admin-keys-create.yaml': { method: 'POST', path: '/admin/keys', auth: 'admin', handler: 'admin', operation: 'admin.keys.create' },
  'admin-keys-list.yaml': { method: 'GET', path: '/admin/keys', auth: 'admin', handler: 'admin', operation: 'admin.keys.list' },
  'admin-keys-get.yaml': { method: 'GET', path: '/admin/keys/:id', auth: 'admin', handler: 'admin', operation: 'admin.keys.get' },
  'admin-keys-update.yaml': { method: 'PATCH', path: '/admin/keys/:id', auth: 'admin', handler: 'admin', operation: 'admin.keys.update' },
  'admin-keys-delete.yaml': { method: 'DELETE', path: '/admin/keys/:id', auth: 'admin', handler: 'admin', operation: 'admin.keys.delete' },
  'admin-keys-rotate.yaml': { method: 'POST', path: '/admin/keys/:id/rotate', auth: 'admin', handler: 'admin', operation: 'admin.keys.rotate' },
  'admin-teams-create.yaml': { method: 'POST', path: '/admin/teams', auth: 'admin', handler: 'admin', operation: 'admin.teams.create' },
  'admin-teams-list.yaml': { method: 'GET', path: '/admin/teams', auth: 'admin', handler: 'admin', operation: 'admin.teams.list' },
  'admin-teams-get.yaml': { method: 'GET', path: '/admin/teams/:id', auth: 'admin', handler: 'admin', operation: 'admin.teams.get' },
  'admin-teams-update.yaml': { method: 'PATCH', path: '/admin/teams/:id', auth: 'admin', handler: 'admin', operation: 'admin.teams.update' },
  'admin-teams-delete.yaml': { method: 'DELETE', path: '/admin/teams/:id', auth: 'admin', handler: 'admin', operation: 'admin.teams.delete' },
  'admin-requests.yaml': { method: 'GET', path: '/admin/requests', auth: 'admin', handler: 'admin', operation: 'admin.requests.list' },
  'admin-audit.yaml': { method: 'GET', path: '/admin/audit', auth: 'admin', handler: 'admin', operation: 'admin.audit.list' },
  'admin-status.yaml': { method: 'GET', path: '/admin/status', auth: 'admin', handler: 'admin', operation: 'admin.status' },
};

/** JSON pointers of schema properties that have no `description`. */
function findUndescribed(schema: unknown, at = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  const props = s.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [name, sub] of Object.entries(props ?? {})) {
    if (typeof sub.description !== 'string' || sub.description.length === 0) out.push(`${at}/properties/${name}`);
  }
  for (const [key, sub] of Object.entries(s)) {
    if (key === 'properties') for (const [n, p] of Object.entries((sub as object) ?? {})) out.push(...findUndescribed(p, `${at}/properties/${n}`));
    else if (key === '$defs') for (const [n, p] of Object.entries((sub as object) ?? {})) out.push(...findUndescribed(p, `${at}/$defs/${n}`));
    else if (key === 'items') out.push(...findUndescribed(sub, `${at}/items`));
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') (sub as unknown[]).forEach((p, i) => out.push(...findUndescribed(p, `${at}/${key}/${i}`)));
  }
  return out;
}

describe('routes/*.yaml', () => {
  const files = readRouteFiles();
  const byName = new Map<string, RouteFile>(files.map((f) => [f.name, f]));
  const meta = createEngineAjv().compile(JSON.parse(readFileSync(ROUTE_META_SCHEMA, 'utf8')) as object);

  describe('catalog', () => {
    it('has exactly one file per SPEC 4.1 endpoint plus the poll, health, readiness, stored-response, file-management, metrics, OpenAPI, docs, usage, admin and dashboard extensions', () => {
      const modelled = [...byName.entries()].filter(([, f]) => f.data.operation !== 'proxy').map(([name]) => name);
      expect(modelled.sort()).to.deep.equal(Object.keys(EXPECTED).sort());
    });

    it('ships pass-through routes for OpenAI and Anthropic, each with an allow list and a charge', () => {
      const proxies = [...byName.entries()].filter(([, f]) => f.data.operation === 'proxy').map(([name, f]) => ({ name, data: f.data as Record<string, unknown> & { proxy: Record<string, unknown> } }));
      expect(proxies.map((p) => p.name).sort()).to.deep.equal(['passthrough-anthropic.yaml', 'passthrough-openai.yaml']);
      for (const { name, data } of proxies) {
        const provider = name.replace(/^passthrough-|\.yaml$/g, '');
        expect(data, name).to.include({ path: `/passthrough/${provider}/{*rest}`, auth: 'key', operation: 'proxy' });
        expect(data.method, name).to.deep.equal(['GET', 'POST', 'DELETE']);
        expect(data.proxy, name).to.include({ provider, strip_prefix: `/passthrough/${provider}` });
        expect(data.proxy.allow, name).to.be.an('array').that.is.not.empty;
        expect(Number(data.proxy.charge_usd), name).to.be.above(0);
      }
    });

    for (const [name, want] of Object.entries(EXPECTED)) {
      it(`declares ${want.method} ${want.path} served by ${want.handler}/${want.operation} in ${name}`, () => {
        const d = byName.get(name)!.data;
        expect(d).to.include({ method: want.method, path: want.path, auth: want.auth, handler: want.handler, operation: want.operation });
        expect(d.surface).to.equal(want.surface);
        expect(d.stream_field).to.equal(want.stream ? 'stream' : undefined);
        expect(d.envelope).to.equal(name === 'messages.yaml' ? 'messages' : 'default');
        if (want.method === 'GET' || want.method === 'DELETE') expect(d.schema, 'GET and DELETE routes take no body').to.equal(undefined);
        else expect(d.schema, 'POST and PATCH routes validate their body').to.be.an('object');
      });
    }

    it('accepts JSON on every POST route and multipart only on /v1/files and /v1/audio/transcriptions', () => {
      const multipart = ['files.yaml', 'audio-transcriptions.yaml'];
      for (const f of files.filter((x) => x.data.method === 'POST')) {
        const want = multipart.includes(f.name) ? ['application/json', 'multipart/form-data'] : ['application/json'];
        expect(f.data.content_types, f.name).to.deep.equal(want);
        expect(Boolean(f.data.multipart_schema), f.name).to.equal(multipart.includes(f.name));
      }
    });
  });

  describe('each file', () => {
    for (const f of files) {
      it(`${f.name} points editors at the meta-schema on its first line`, () => {
        expect(f.text.split('\n')[0]).to.equal('# yaml-language-server: $schema=../schemas/route.schema.json');
      });

      it(`${f.name} is valid against schemas/route.schema.json`, () => {
        const ok = meta(f.data);
        expect(meta.errors ?? [], f.name).to.deep.equal([]);
        expect(ok).to.equal(true);
      });

      it(`${f.name} compiles with the engine's ajv settings and describes every property`, () => {
        const ajv = createEngineAjv();
        for (const key of ['schema', 'multipart_schema'] as const) {
          const schema = f.data[key];
          if (!schema) continue;
          expect(() => ajv.compile(schema as object), `${f.name} ${key}`).not.to.throw();
          expect(findUndescribed(schema), `${f.name} ${key}`).to.deep.equal([]);
        }
      });
    }

    it('gives `model` min length 1 on every model route', () => {
      for (const f of files.filter((x) => x.data.handler === 'model-call')) {
        const props = (f.data.schema as { properties: Record<string, unknown> }).properties;
        expect(props.model, f.name).to.deep.include({ type: 'string', minLength: 1 });
        expect((f.data.schema as { required: string[] }).required, f.name).to.include('model');
      }
    });

    it('allows additional properties on model routes except rerank and the files JSON body; never on the admin API', () => {
      for (const f of files.filter((x) => x.data.schema)) {
        const want = !['rerank.yaml', 'files.yaml'].includes(f.name) && !String(f.data.path).startsWith('/admin/');
        expect((f.data.schema as { additionalProperties: unknown }).additionalProperties, f.name).to.equal(want);
      }
    });
  });

  describe('schemas/route.schema.json', () => {
    const base = { method: 'POST', path: '/v1/x', auth: 'key', envelope: 'default', content_types: ['application/json'], handler: 'model-call', operation: 'x.y', schema: { type: 'object' } };

    it('accepts a minimal POST route', () => {
      expect(meta(base)).to.equal(true);
    });

    it('reports a misspelled key as an additional property', () => {
      expect(meta({ ...base, stream_feild: 'stream' })).to.equal(false);
      expect(meta.errors!.map((e) => (e.params as { additionalProperty?: string }).additionalProperty)).to.include('stream_feild');
    });

    for (const key of ['method', 'path', 'auth', 'envelope', 'handler', 'operation']) {
      it(`reports a missing ${key}`, () => {
        const { [key]: _dropped, ...rest } = base as Record<string, unknown>;
        expect(meta(rest)).to.equal(false);
        expect(meta.errors!.map((e) => (e.params as { missingProperty?: string }).missingProperty)).to.include(key);
      });
    }

    for (const [key, value] of [['method', 'FETCH'], ['auth', 'token'], ['envelope', 'anthropic'], ['path', 'v1/x'], ['schema', 'object'], ['multipart_schema', []], ['content_types', []]] as const) {
      it(`reports ${key}: ${JSON.stringify(value)}`, () => {
        expect(meta({ ...base, [key]: value })).to.equal(false);
        expect(meta.errors!.some((e) => e.instancePath.startsWith(`/${key}`))).to.equal(true);
      });
    }

    it('requires content_types on POST routes but not on GET routes', () => {
      const { content_types: _ct, schema: _s, ...noTypes } = base;
      expect(meta(noTypes)).to.equal(false);
      expect(meta({ ...noTypes, method: 'GET' })).to.equal(true);
    });

    it('requires multipart/form-data among content_types when multipart_schema is set', () => {
      expect(meta({ ...base, multipart_schema: { type: 'object' } })).to.equal(false);
      expect(meta({ ...base, content_types: ['application/json', 'multipart/form-data'], multipart_schema: { type: 'object' } })).to.equal(true);
    });
  });
});
