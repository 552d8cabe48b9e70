/**
 * The text suites' deployments on the kit: one OpenAI upstream (chat completions and responses,
 * which share OPENAI_BASE_URL), one Anthropic and one Gemini upstream, each serving only its own
 * provider's dialects (anything else is an unrouted violation), plus the gateway environment
 * that points the catalog's providers at them. Each dialect has a view with its own fault queue.
 */
import { startKitUpstream, type Fault, type KitRequest, type KitUpstream } from './fake-upstream.js';
import { deploymentSet, providerEnv, type DeploymentSet } from './provider-env.js';

/** Provider keys the deployments accept; the gateway must send these, never the client's key. */
export const FAKE_KEYS = { openai: 'sk-fake-openai-0123', anthropic: 'sk-ant-fake-4567', gemini: 'gemini-fake-key-89ab' } as const;

/** One dialect of a deployment: faults scripted for that dialect and the requests it served. */
export interface DialectFake {
  readonly dialect: string;
  readonly upstream: KitUpstream;
  /** Scripts the faults of this dialect's next requests, in order. */
  enqueue(...faults: Fault[]): void;
  readonly requests: KitRequest[];
  /** The most recent request of this dialect (throws when there is none). */
  last(): KitRequest;
}

/** The text deployments, a view per dialect and the environment for startGateway (violations include unrouted requests). */
export interface TextDeployments extends DeploymentSet {
  chat: DialectFake;
  responses: DialectFake;
  anthropic: DialectFake;
  gemini: DialectFake;
  /** Views by dialect name (`openai-chat`, `openai-responses`, `anthropic-messages`, `gemini`). */
  byDialect: Record<string, DialectFake>;
  upstreams: { openai: KitUpstream; anthropic: KitUpstream; gemini: KitUpstream };
  /** OPENAI_/ANTHROPIC_/GEMINI_ key and base URL variables. */
  env: Record<string, string>;
}

/** The view of `dialect` on `upstream`. */
export function dialectFake(upstream: KitUpstream, dialect: string): DialectFake {
  return {
    dialect,
    upstream,
    enqueue: (...faults) => upstream.enqueueFor(dialect, ...faults),
    get requests() { return upstream.requests.filter((r) => r.dialect === dialect); },
    last: () => upstream.last(dialect),
  };
}

/** Starts the three deployments on 127.0.0.1 with random ports. */
export async function startTextDeployments(): Promise<TextDeployments> {
  const [openai, anthropicUp, geminiUp] = await Promise.all([
    startKitUpstream('openai', FAKE_KEYS.openai, { dialects: ['openai-chat', 'openai-responses'] }),
    startKitUpstream('anthropic', FAKE_KEYS.anthropic, { dialects: ['anthropic-messages'] }),
    startKitUpstream('gemini', FAKE_KEYS.gemini, { dialects: ['gemini'] }),
  ]);
  const all = [openai, anthropicUp, geminiUp];
  const views = [
    dialectFake(openai, 'openai-chat'),
    dialectFake(openai, 'openai-responses'),
    dialectFake(anthropicUp, 'anthropic-messages'),
    dialectFake(geminiUp, 'gemini'),
  ] as const;
  return {
    chat: views[0], responses: views[1], anthropic: views[2], gemini: views[3],
    byDialect: Object.fromEntries(views.map((v) => [v.dialect, v])),
    upstreams: { openai, anthropic: anthropicUp, gemini: geminiUp },
    env: providerEnv({ openai, anthropic: anthropicUp, gemini: geminiUp }),
    ...deploymentSet(all),
  };
}
