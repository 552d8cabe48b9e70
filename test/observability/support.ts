import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, YAMLMap } from 'yaml';
import { compile } from '../../src/compile/compile.js';
import { formatDiagnostic } from '../../src/config/diagnostics.js';
import { loadProject } from '../../src/config/load-project.js';
import { createLogger } from '../../src/observability/logger.js';
import type { Runtime } from '../../src/compile/runtime.js';
import { startGateway, type RunningGateway } from '../../src/server/start.js';
import { baseConfigPath } from '../e2e/chat-upstream/config-copy.js';
import { startKitUpstream, type KitUpstream } from '../kit/fake-upstream.js';
import { chatAnswer } from '../kit/scripted-answers.js';

export const CLIENT_KEY = 'gw-client-key-0123456789';
export const ADMIN_KEY = 'gw-admin-key-abcdefghij';
/** A second admin key, declared in YAML by its sha256 only. */
export const YAML_ADMIN_KEY = 'gw-yaml-admin-key-zyxwvu';
export const UPSTREAM_KEY = 'sk-obs-upstream-secret-000111';
/** The YAML-declared OpenAI-compatible model the tests call through the fake upstream. */
export const ACME_MODEL = 'acme/obs-chat';

/** The words the acme upstream answers (one stream chunk each) and its usage. */
export const ACME_WORDS = ['Hello', ' from', ' the', ' fake', ' upstream', '.'];
export const ACME_USAGE = { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 };

/** The `acme` deployment on the kit: OpenAI chat completions answering ACME_WORDS with ACME_USAGE, accepting UPSTREAM_KEY. */
export function startAcmeUpstream(): Promise<KitUpstream> {
  return startKitUpstream('acme', UPSTREAM_KEY, { dialects: ['openai-chat'], answer: chatAnswer(ACME_WORDS, ACME_USAGE, 'obs-chat-2026') });
}

/** Holding an acme stream here sends the role chunk and the first word only. */
export const AFTER_FIRST_WORD = 2;

/** A gateway started for observability tests, with every access log line it wrote. */
export interface ObservedGateway {
  url: string;
  gateway: RunningGateway;
  /** Parsed JSON log lines, in order. */
  lines: Array<Record<string, unknown>>;
  /** Raw log text, to search for secrets. */
  raw: string[];
  /** Compiles the same config with other options (for a reload through `gateway.store.swap`). */
  compileWith(options: ObservedOptions): Runtime;
  /** Waits until a `request` line with this request id was written. */
  requestLine(requestId: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Settings written into a copy of the base gateway.yaml (paths as in the YAML). */
export interface ObservedOptions {
  observability?: Record<string, unknown>;
  /** Adds the `acme` provider (type openai-chat) pointing at this fake (see startAcmeUpstream). */
  fake?: KitUpstream;
  env?: Record<string, string>;
}

/**
 * Starts the real server on 127.0.0.1 from a copy of the base config with `auth.admin_keys`
 * (one YAML hash) and the given observability settings, logging at info into memory.
 */
export async function startObserved(options: ObservedOptions = {}): Promise<ObservedGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-obs-'));
  const runtime = compileConfig(dir, options);
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const waiters: Array<() => void> = [];
  const logger = createLogger('info', {
    destination: {
      write(text: string) {
        for (const line of text.split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        for (const w of waiters.splice(0)) w();
      },
    },
  });
  const gateway = await startGateway(runtime, { host: '127.0.0.1', port: 0, logger });
  const requestLine = async (requestId: string): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = lines.find((l) => l.msg === 'request' && l.request_id === requestId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no access log line for ${requestId}; lines: ${raw.join('\n')}`);
      await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 50); });
    }
  };
  return {
    url: gateway.url,
    gateway,
    lines,
    raw,
    compileWith: (other) => compileConfig(dir, other),
    requestLine,
    close: async () => {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes a copy of the base config with the options into `dir` and compiles it. */
function compileConfig(dir: string, options: ObservedOptions): Runtime {
  const base = baseConfigPath();
  const doc = parseDocument(readFileSync(base, 'utf8'));
  const routes = doc.get('routes');
  doc.set('routes', resolve(dirname(base), typeof routes === 'string' ? routes : 'routes'));
  doc.setIn(['auth', 'admin_keys'], doc.createNode([{ name: 'ops-yaml', sha256: createHash('sha256').update(YAML_ADMIN_KEY).digest('hex') }]));
  if (options.observability) doc.set('observability', doc.createNode(options.observability));
  if (options.fake) {
    (doc.get('providers') as YAMLMap).set('acme', doc.createNode({ type: 'openai-chat', base_url: `${options.fake.url}/v1`, api_key_env: 'ACME_API_KEY' }));
    doc.addIn(['models'], doc.createNode({
      id: ACME_MODEL, provider: 'acme', upstream: 'obs-chat-2026', endpoints: ['/v1/chat/completions'],
      parameters: ['temperature', 'max_tokens', 'stream', 'stream_options'],
      pricing: { prompt: '0.000001', completion: '0.000002' },
    }));
  }
  const path = join(dir, 'gateway.yaml');
  writeFileSync(path, doc.toString());
  const env: Record<string, string> = {
    GATEWAY_API_KEYS: CLIENT_KEY,
    GATEWAY_ADMIN_KEYS: ADMIN_KEY,
    ACME_API_KEY: UPSTREAM_KEY,
    GATEWAY_FILES_DIR: resolve(process.cwd(), '.gateway/test-files'),
    // One try per call and no breaker in the way: each test sees its one upstream answer.
    GATEWAY_RETRY_ATTEMPTS: '1',
    GATEWAY_BREAKER_FAILURES: '1000000',
    ...options.env,
  };
  const { runtime, diagnostics } = compile(loadProject(path, env), env);
  if (!runtime) throw new Error(`test config does not compile:\n${diagnostics.map(formatDiagnostic).join('\n')}`);
  return runtime;
}
