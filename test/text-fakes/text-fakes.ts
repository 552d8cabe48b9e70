/**
 * All text fakes at once: one server for OpenAI (chat completions + responses, which share
 * OPENAI_BASE_URL), one for Anthropic, one for Gemini, plus the gateway environment that points
 * the catalog's providers at them.
 */
import { anthropicMessagesBehavior } from './anthropic-messages-fake.js';
import { FakeUpstream } from './fake-upstream.js';
import { startFakeServer, type FakeServer } from './fake-server.js';
import { geminiBehavior } from './gemini-fake.js';
import { openAiChatBehavior } from './openai-chat-fake.js';
import { openAiResponsesBehavior } from './openai-responses-fake.js';

/** Provider keys the fakes accept; the gateway must send these, never the client's key. */
export const FAKE_KEYS = { openai: 'sk-fake-openai-0123', anthropic: 'sk-ant-fake-4567', gemini: 'gemini-fake-key-89ab' } as const;

/** The four fakes, their servers and the environment for startGateway. */
export interface TextFakes {
  chat: FakeUpstream;
  responses: FakeUpstream;
  anthropic: FakeUpstream;
  gemini: FakeUpstream;
  /** Fakes by dialect name (`openai-chat`, `openai-responses`, `anthropic-messages`, `gemini`). */
  byDialect: Record<string, FakeUpstream>;
  /** OPENAI_/ANTHROPIC_/GEMINI_ key and base URL variables. */
  env: Record<string, string>;
  /** Every violation of every fake and every unrouted request. */
  violations(): string[];
  reset(): void;
  close(): Promise<void>;
}

/** Starts the fakes on 127.0.0.1 with random ports. */
export async function startTextFakes(): Promise<TextFakes> {
  const chat = new FakeUpstream(openAiChatBehavior, FAKE_KEYS.openai);
  const responses = new FakeUpstream(openAiResponsesBehavior, FAKE_KEYS.openai);
  const anthropic = new FakeUpstream(anthropicMessagesBehavior, FAKE_KEYS.anthropic);
  const gemini = new FakeUpstream(geminiBehavior, FAKE_KEYS.gemini);
  const servers: FakeServer[] = [];
  const openAiServer = await startFakeServer([chat, responses]);
  servers.push(openAiServer);
  const anthropicServer = await startFakeServer([anthropic]);
  servers.push(anthropicServer);
  const geminiServer = await startFakeServer([gemini]);
  servers.push(geminiServer);
  const all = [chat, responses, anthropic, gemini];
  return {
    chat, responses, anthropic, gemini,
    byDialect: Object.fromEntries(all.map((f) => [f.behavior.name, f])),
    env: {
      OPENAI_API_KEY: FAKE_KEYS.openai,
      OPENAI_BASE_URL: `${openAiServer.url}/v1`,
      ANTHROPIC_API_KEY: FAKE_KEYS.anthropic,
      ANTHROPIC_BASE_URL: anthropicServer.url,
      GEMINI_API_KEY: FAKE_KEYS.gemini,
      GEMINI_BASE_URL: geminiServer.url,
    },
    violations: () => [...all.flatMap((f) => f.violations), ...servers.flatMap((s) => s.unrouted.map((u) => `unrouted: ${u}`))],
    reset: () => {
      for (const f of all) f.reset();
      for (const s of servers) s.unrouted.length = 0;
    },
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
