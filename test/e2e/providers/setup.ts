import { resolve } from 'node:path';
import { compile } from '../../../src/compile/compile.js';
import { formatDiagnostic } from '../../../src/config/diagnostics.js';
import { loadProject } from '../../../src/config/load-project.js';
import type { ModelSpec } from '../../../src/config/types.js';
import { createLogger } from '../../../src/observability/logger.js';
import { startGateway as startServer } from '../../../src/server/start.js';
import { startGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import type { KitRequest, KitUpstream } from '../../kit/fake-upstream.js';
import { startCohereUpstream, type CohereUpstream } from '../../kit/providers/cohere.js';
import { startElevenLabsUpstream, type ElevenLabsUpstream } from '../../kit/providers/elevenlabs.js';
import { startGoogleUpstream, type GoogleUpstream } from '../../kit/providers/google.js';
import { startJinaUpstream, type JinaUpstream } from '../../kit/providers/jina.js';
import { startMistralUpstream, type MistralUpstream } from '../../kit/providers/mistral.js';
import { startOpenAiUpstream, type OpenAiUpstream } from '../../kit/providers/openai.js';
import { startVoyageUpstream, type VoyageUpstream } from '../../kit/providers/voyage.js';

/** The real gateway (gateway.yaml) wired to one kit upstream per provider. */
export interface ProviderRig {
  gw: TestGateway;
  openai: OpenAiUpstream;
  google: GoogleUpstream;
  cohere: CohereUpstream;
  voyage: VoyageUpstream;
  jina: JinaUpstream;
  mistral: MistralUpstream;
  elevenlabs: ElevenLabsUpstream;
  /** Every provider's kit upstream. */
  upstreams: KitUpstream[];
  /** The violations of every upstream (requests a provider would have refused, unrouted ones). */
  violations(): string[];
  /** POSTs JSON with the test key; returns status, headers and the parsed JSON (or bytes). */
  post(path: string, body: unknown, key?: string): Promise<RigResponse>;
  get(path: string, key?: string): Promise<RigResponse>;
  close(): Promise<void>;
}

export interface RigResponse { status: number; headers: Headers; json: Record<string, unknown>; bytes: Buffer }

/**
 * Starts one kit upstream per provider (each serving that provider's handler dialects) and a gateway whose providers point at them through the documented
 * `<NAME>_API_KEY` / `<NAME>_BASE_URL` variables (base URLs written as each SDK expects).
 * Job polls run every 50 ms (GATEWAY_JOB_POLL_MS).
 */
export async function startProviderRig(env: Record<string, string> = {}, options: { permissive?: boolean; models?: ModelSpec[] } = {}): Promise<ProviderRig> {
  const [openai, google, cohere, voyage, jina, mistral, elevenlabs] = await Promise.all([
    startOpenAiUpstream(), startGoogleUpstream(), startCohereUpstream(), startVoyageUpstream(), startJinaUpstream(), startMistralUpstream(), startElevenLabsUpstream(),
  ]);
  const upstreams: KitUpstream[] = [openai, google, cohere, voyage, jina, mistral, elevenlabs];
  const rigEnv: Record<string, string> = {
    OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${openai.url}/v1`,
    GEMINI_API_KEY: 'g-test', GEMINI_BASE_URL: google.url,
    COHERE_API_KEY: 'co-test', COHERE_BASE_URL: cohere.url,
    VOYAGE_API_KEY: 'pa-test', VOYAGE_BASE_URL: `${voyage.url}/v1`,
    JINA_API_KEY: 'jina-test', JINA_BASE_URL: `${jina.url}/v1`,
    MISTRAL_API_KEY: 'mi-test', MISTRAL_BASE_URL: `${mistral.url}/v1`,
    ELEVENLABS_API_KEY: 'xi-test', ELEVENLABS_BASE_URL: elevenlabs.url,
    GATEWAY_JOB_POLL_MS: '50',
    ...env,
  };
  const gw = options.permissive || options.models ? await startCustom(rigEnv, options) : await startGateway({ env: rigEnv });
  const send = async (method: string, path: string, body: unknown, key: string): Promise<RigResponse> => {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, headers: res.headers, json: isJson ? JSON.parse(bytes.toString('utf8')) as Record<string, unknown> : {}, bytes };
  };
  return {
    gw, openai, google, cohere, voyage, jina, mistral, elevenlabs, upstreams,
    violations: () => upstreams.flatMap((u) => u.violations),
    post: (path, body, key = gw.key) => send('POST', path, body, key),
    get: (path, key = gw.key) => send('GET', path, undefined, key),
    async close() {
      await gw.close();
      await Promise.all(upstreams.map((u) => u.close()));
    },
  };
}

/** The last request an upstream received on a path. */
export function lastRequest(upstream: { requests: KitRequest[] }, path: string | RegExp): KitRequest {
  const list = upstream.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)));
  const last = list[list.length - 1];
  if (!last) throw new Error(`no request to ${String(path)}`);
  return last;
}

/**
 * The repository gateway.yaml, changed in memory: `permissive` removes every model's
 * `parameters` list, so nothing is dropped before the mapping runs (the mappings' own refusals
 * and conversions are what a client sees, as with a catalog listing those parameters); `models`
 * adds catalog entries (e.g. a model on a mapping no listed model uses yet).
 */
async function startCustom(env: Record<string, string>, options: { permissive?: boolean; models?: ModelSpec[] }): Promise<TestGateway> {
  const full = { GATEWAY_API_KEYS: TEST_KEY, GATEWAY_FILES_DIR: resolve(process.cwd(), '.gateway/test-files'), LOG_LEVEL: 'silent', ...env };
  const project = loadProject(resolve(process.cwd(), 'gateway.yaml'), full);
  if (options.permissive) for (const model of project.config!.models) delete model.parameters;
  project.config!.models.push(...(options.models ?? []));
  const { runtime, diagnostics } = compile(project, full);
  if (!runtime) throw new Error(diagnostics.map(formatDiagnostic).join('\n'));
  const server = await startServer(runtime, { host: '127.0.0.1', port: 0, logger: createLogger('silent') });
  return { url: server.url, key: full.GATEWAY_API_KEYS.split(',')[0]!, close: () => server.close() };
}
