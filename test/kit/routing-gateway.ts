/**
 * The server side of the kit: the repo's gateway.yaml with a routing scenario written on top
 * (in YAML, as an operator would), four fake deployments (OpenAI primary and second, Anthropic,
 * Gemini) and a real gateway booted against them.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { startGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { startKitUpstream, type Fault, type KitRequest, type KitUpstream } from './fake-upstream.js';
import { deploymentSet, providerEnv, type DeploymentSet } from './provider-env.js';

/** A key whose `models` allowlist admits OpenAI models only. */
export const LIMITED_KEY = 'limited-key-0123456789';

/** The fake deployments of one scenario. */
export interface KitUpstreams extends DeploymentSet {
  openai: KitUpstream;
  openai2: KitUpstream;
  anthropic: KitUpstream;
  gemini: KitUpstream;
  all: KitUpstream[];
  /** OPENAI_*, OPENAI_*_2, ANTHROPIC_*, GEMINI_* for the gateway. */
  env: Record<string, string>;
}

/** Starts the four fake deployments. */
export async function startKitUpstreams(): Promise<KitUpstreams> {
  const [openai, openai2, anthropic, gemini] = await Promise.all([
    startKitUpstream('openai-primary', 'sk-kit-openai-1'),
    startKitUpstream('openai-second', 'sk-kit-openai-2'),
    startKitUpstream('anthropic', 'sk-ant-kit-3'),
    startKitUpstream('gemini', 'kit-gemini-4'),
  ]);
  const all = [openai, openai2, anthropic, gemini];
  return {
    openai, openai2, anthropic, gemini, all,
    env: { ...providerEnv({ openai, anthropic, gemini }), OPENAI_API_KEY_2: openai2.apiKey, OPENAI_BASE_URL_2: `${openai2.url}/v1` },
    ...deploymentSet(all),
  };
}

/** YAML edits of a scenario, applied to the parsed repo gateway.yaml. */
export interface Scenario {
  routing?: Record<string, unknown>;
  /** Merged into `providers.<name>` (e.g. `upstreams`, `routing`). */
  providers?: Record<string, Record<string, unknown>>;
  /** Merged into the catalog model with this id (e.g. `fallbacks`, `routing`). */
  models?: Record<string, Record<string, unknown>>;
  /** Models appended to the catalog (router models). */
  extraModels?: Array<Record<string, unknown>>;
  store?: Record<string, unknown>;
  /** gateway.yaml `realtime` (a shared store needs its secret). */
  realtime?: Record<string, unknown>;
  /** gateway.yaml `cache` (the response cache). */
  cache?: Record<string, unknown>;
  /** Keys appended to `auth.keys` (after the `limited` key). */
  keys?: Array<Record<string, unknown>>;
}

/** Writes the scenario's gateway.yaml into a temp folder (routes point at the repo's). */
export function writeScenario(scenario: Scenario): { path: string; remove(): void } {
  const base = resolve(process.cwd(), 'gateway.yaml');
  const config = parse(readFileSync(base, 'utf8')) as Record<string, unknown>;
  config.routes = resolve(dirname(base), typeof config.routes === 'string' ? config.routes : 'routes');
  if (scenario.routing) config.routing = scenario.routing;
  if (scenario.store) config.store = scenario.store;
  if (scenario.realtime) config.realtime = scenario.realtime;
  if (scenario.cache) config.cache = { ...(config.cache as Record<string, unknown>), ...scenario.cache };
  const providers = config.providers as Record<string, Record<string, unknown>>;
  for (const [name, patch] of Object.entries(scenario.providers ?? {})) providers[name] = { ...providers[name], ...patch };
  const models = config.models as Array<Record<string, unknown>>;
  for (const [id, patch] of Object.entries(scenario.models ?? {})) {
    const m = models.find((x) => x.id === id);
    if (!m) throw new Error(`no catalog model ${id}`);
    Object.assign(m, patch);
  }
  models.push(...(scenario.extraModels ?? []));
  const auth = config.auth as { keys?: unknown[] };
  auth.keys = [{ name: 'limited', sha256: createHash('sha256').update(LIMITED_KEY).digest('hex'), models: ['openai/*'] }, ...(scenario.keys ?? [])];
  const dir = mkdtempSync(join(tmpdir(), 'gw-routing-'));
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return { path: file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Fast test backoff and a low breaker threshold; everything else at the documented defaults. */
export const TEST_ROUTING = {
  retry: { attempts: 3, backoff_ms: { initial: 5, max: 20 }, retry_after_max_s: 2 },
  timeouts: { connect_ms: 1000, first_byte_ms: 1500, idle_ms: 1500, total_ms: 20_000 },
  breaker: { failures: 50, window_s: 30, cooldown_s: 30 },
};

/** A gateway on a scenario; `close` stops it and removes its config. */
export async function startScenarioGateway(kit: KitUpstreams, scenario: Scenario, env: Record<string, string> = {}): Promise<TestGateway> {
  const config = writeScenario({ routing: TEST_ROUTING, ...scenario });
  const gw = await startGateway({ configPath: config.path, env: { ...kit.env, GATEWAY_API_KEYS: TEST_KEY, ...env } });
  return { ...gw, close: async () => { await gw.close(); config.remove(); } };
}

/** The kit deployment that serves a dialect in the default scenario. */
export function deploymentFor(kit: KitUpstreams, dialect: string): KitUpstream {
  return dialect.startsWith('openai') ? kit.openai : dialect === 'gemini' ? kit.gemini : kit.anthropic;
}

/** One dialect of a kit deployment: its faults queue and the requests of that dialect. */
export interface DialectView {
  enqueue(...faults: Fault[]): void;
  readonly requests: KitRequest[];
  last(): KitRequest;
}

/** The view of one dialect (requests filtered by dialect; faults go to its deployment's queue). */
export function dialectView(kit: KitUpstreams, dialect: string): DialectView {
  const upstream = deploymentFor(kit, dialect);
  return {
    enqueue: (...faults) => upstream.enqueue(...faults),
    get requests() { return upstream.requests.filter((r) => r.dialect === dialect); },
    last() {
      const r = this.requests.at(-1);
      if (!r) throw new Error(`kit ${upstream.name} received no ${dialect} request`);
      return r;
    },
  };
}

/** A gateway and its kit for one mocha describe block (set in `before`). */
export interface KitHarness { gw: TestGateway; kit: KitUpstreams }

/** Registers before/after hooks that start the kit and a gateway on `scenario` and reset the kit before each test. */
export function useKitGateway(scenario: Scenario = {}): KitHarness {
  const h = {} as KitHarness;
  before(async () => {
    h.kit = await startKitUpstreams();
    h.gw = await startScenarioGateway(h.kit, scenario);
  });
  after(async () => {
    await h.gw?.close();
    await h.kit?.close();
  });
  beforeEach(() => h.kit?.reset());
  return h;
}

/** An `it` whose body is followed by the check that every upstream request was valid. */
export function kitCell(h: KitHarness, title: string, body: () => Promise<void>): Mocha.Test {
  return it(title, async () => {
    await body();
    expect(h.kit.violations(), 'requests a provider would have refused').to.deep.equal([]);
  });
}
