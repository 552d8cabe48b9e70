/**
 * An OpenAI chat deployment on the kit whose streams are held open (the lifecycle suites: drain,
 * reload): each stream sends its role chunk and first content chunk ('first '), then waits until
 * the test calls `release()` for the rest ('second', finish, usage, [DONE]). With `holdJson`,
 * non-streamed calls are held before their headers too.
 */
import { manualGate } from './fault.js';
import { startKitUpstream, type KitUpstream } from './fake-upstream.js';
import { chatAnswer } from './scripted-answers.js';

/** The held deployment and the hand that releases it. */
export interface HeldChat {
  upstream: KitUpstream;
  /** The OPENAI_BASE_URL of the deployment (`…/v1`). */
  baseUrl: string;
  /** Finishes every request held now (later ones hold again). */
  release(): void;
  close(): Promise<void>;
}

/** The answer of a held deployment: 'first ' | hold | 'second'. */
export const HELD_ANSWER = chatAnswer(['first ', 'second'], { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, 'slow-1');

/** Starts a held deployment accepting `apiKey` (and `extraKeys`, for key rotation). */
export async function startHeldChat(apiKey: string, options: { holdJson?: boolean; extraKeys?: string[] } = {}): Promise<HeldChat> {
  const gate = manualGate();
  const upstream = await startKitUpstream('held-openai', apiKey, {
    dialects: ['openai-chat'],
    extraKeys: options.extraKeys ?? [],
    // Two events: the role chunk and the first content chunk.
    answer: HELD_ANSWER,
    defaultFault: { holdAfterEvents: 2, holdUntil: (request) => (request.stream || options.holdJson ? gate.wait() : undefined) },
  });
  return { upstream, baseUrl: `${upstream.url}/v1`, release: () => gate.release(), close: () => upstream.close() };
}
