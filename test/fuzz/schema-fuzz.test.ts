/**
 * Generated fuzz test (issue 10 item 12): for every POST route of routes/*.yaml, bodies derived
 * from the route's own schema are mutated (wrong JSON types per field, huge strings, deep
 * nesting, lone surrogates, bad UTF-8 bytes, wrong content types, truncated JSON, empty and
 * non-object bodies) and sent to a real gateway on the sandbox provider. Every answer must be a
 * non-5xx; every refusal a 4xx JSON envelope of the route's style (SPEC 2.5 default, 2.6
 * messages); mutations that cannot be valid must be refused.
 * Seeded and bounded: FUZZ_SEED picks another (still deterministic) run.
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import { request } from 'undici';
import { loadProject } from '../../src/config/load-project.js';
import type { RouteSpec } from '../../src/config/types.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { baseBody, bodyCases, createRandom, fieldCases, type FuzzCase } from './mutations.js';
import type { SchemaNode } from './schema-bodies.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const CONCURRENCY = 8;

interface Outcome { status: number; contentType: string; body: string }

async function send(gw: TestGateway, route: RouteSpec, c: FuzzCase): Promise<Outcome> {
  const res = await request(`${gw.url}${route.path}`, {
    method: route.method as 'POST',
    headers: { authorization: `Bearer ${gw.key}`, ...(c.contentType !== undefined ? { 'content-type': c.contentType } : {}) },
    body: c.body,
  });
  const body = await res.body.text();
  const type = res.headers['content-type'];
  return { status: res.statusCode, contentType: Array.isArray(type) ? type[0]! : type ?? '', body };
}

/** Checks one answer; returns a problem or undefined. */
function judge(route: RouteSpec, c: FuzzCase, out: Outcome): string | undefined {
  if (out.status >= 500) return `answered ${out.status}: ${out.body.slice(0, 200)}`;
  if (out.status < 400) return c.mustRefuse ? `accepted (${out.status}) a body it must refuse` : undefined;
  if (!/^application\/json/.test(out.contentType)) return `a ${out.status} that is not JSON (${out.contentType})`;
  let body: { type?: unknown; error?: { type?: unknown; message?: unknown } };
  try {
    body = JSON.parse(out.body) as typeof body;
  } catch {
    return `a ${out.status} whose body is not JSON`;
  }
  if (typeof body.error?.type !== 'string' || typeof body.error.message !== 'string') return `a ${out.status} without error.type/error.message: ${out.body.slice(0, 200)}`;
  if (route.envelope === 'messages' && body.type !== 'error') return `a ${out.status} not in the messages envelope: ${out.body.slice(0, 200)}`;
  if (route.envelope !== 'messages' && body.type !== undefined) return `a ${out.status} in the messages envelope on a default route`;
  if (/\n\s+at .+:\d+:\d+/.test(out.body)) return 'a stack trace in the answer';
  return undefined;
}

describe('fuzz: mutated bodies on every route (test/fuzz)', function () {
  this.timeout(120_000);
  let gw: TestGateway;
  const project = loadProject(resolve(process.cwd(), 'gateway.yaml'), {});
  const routes = project.routes.filter((r) => r.method === 'POST' && r.schema !== undefined && !r.path.includes(':'));

  before(async () => {
    gw = await startGateway({ env: { GATEWAY_DISCOVERY_RPM: '100000' } });
  });
  after(async () => gw?.close());

  it('walks the schema of every POST route of routes/*.yaml', () => {
    expect(routes.map((r) => r.path)).to.include.members(['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/embeddings', '/v1/rerank']);
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}: every mutated body gets a 4xx ${route.envelope} envelope or an answer, never a 5xx (seed ${SEED})`, async () => {
      const models = await fetchModels(gw);
      const model = models.find((m) => m.supported_endpoints?.includes(route.path) && m.id.startsWith('sandbox/'))?.id;
      const random = createRandom(SEED ^ hash(route.path));
      const schema = route.schema as SchemaNode;
      const base = baseBody(schema, model);
      const cases = [...fieldCases(schema, base, random), ...bodyCases(base, route.content_types, random)];
      const problems: string[] = [];
      for (let i = 0; i < cases.length; i += CONCURRENCY) {
        const batch = cases.slice(i, i + CONCURRENCY);
        const outs = await Promise.all(batch.map((c) => send(gw, route, c)));
        batch.forEach((c, j) => {
          const problem = judge(route, c, outs[j]!);
          if (problem) problems.push(`${c.name}: ${problem}`);
        });
      }
      expect(cases.length, 'cases generated').to.be.greaterThan(20);
      expect(problems, `${problems.length} of ${cases.length} cases (seed ${SEED})`).to.deep.equal([]);
    });
  }
});

async function fetchModels(gw: TestGateway): Promise<Array<{ id: string; supported_endpoints?: string[] }>> {
  const res = await request(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } });
  return ((await res.body.json()) as { data: Array<{ id: string; supported_endpoints?: string[] }> }).data;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
