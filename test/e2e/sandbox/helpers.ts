import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/** The two keys every sandbox e2e gateway accepts: the first is the default caller. */
export const KEY_A = 'e2e-key-alpha-0123456789';
/** A second valid key, used to prove files and jobs belong to the key that made them. */
export const KEY_B = 'e2e-key-bravo-0123456789';

/**
 * Boots the real gateway on 127.0.0.1 from the repo gateway.yaml (or GATEWAY_TEST_CONFIG)
 * with two accepted keys; extra env (e.g. a fixed realtime secret) goes on top.
 */
export function bootSandbox(env: Record<string, string> = {}): Promise<TestGateway> {
  return startGateway({ env: { GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`, ...env } });
}

/** The sandbox gateway of one describe block and an SDK client on it with KEY_A (set in `before`). */
export interface SandboxHarness<C> { gw: TestGateway; client: C }

/** Registers hooks that boot the sandbox gateway and make its client before the block, and close it after. */
export function useSandbox<C>(makeClient: (gw: TestGateway) => C): SandboxHarness<C> {
  const h = {} as SandboxHarness<C>;
  before(async () => {
    h.gw = await bootSandbox();
    h.client = makeClient(h.gw);
  });
  after(() => h.gw?.close());
  return h;
}

/** The official OpenAI SDK pointed at the gateway (`/v1` base, no retries so errors surface). */
export function openAiClient(gw: TestGateway, apiKey: string = KEY_A): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

/** The official Anthropic SDK pointed at the gateway (it appends `/v1/messages` itself). */
export function anthropicClient(gw: TestGateway, apiKey: string = KEY_A): Anthropic {
  return new Anthropic({ apiKey, baseURL: gw.url, maxRetries: 0 });
}

/** A parsed JSON answer with its status and headers. */
export interface JsonAnswer<T> { status: number; headers: Headers; body: T }

/** POSTs JSON with `Authorization: Bearer <key>` and parses the JSON answer. */
export async function postJson<T = Record<string, unknown>>(gw: TestGateway, path: string, body: unknown, apiKey: string = KEY_A): Promise<JsonAnswer<T>> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** GETs a path with the key and parses the JSON answer. */
export async function getJson<T = Record<string, unknown>>(gw: TestGateway, path: string, apiKey: string = KEY_A): Promise<JsonAnswer<T>> {
  const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** The default error envelope (SPEC 2.5). */
export interface ErrorEnvelope { error: { message: string; type: string; code?: string | null; details?: Record<string, unknown> } }

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
