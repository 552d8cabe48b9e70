import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAiValidator } from '../../helpers/openapi.js';

/** One request the fake received, as it came off the wire. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Findings of OpenAI's CreateChatCompletionRequest schema; empty when valid. */
  schemaErrors: string[];
  /** Resolves when the gateway closed this request's connection or the response ended. */
  closed: Promise<'aborted' | 'finished'>;
}

/** How the fake answers one request; the default answers like OpenAI (JSON or a stream). */
export type Behavior = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

/** A fake OpenAI-compatible upstream on 127.0.0.1. */
export interface FakeOpenAi {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every chat request received, in order. */
  requests: SeenRequest[];
  /** Answers the next requests with these behaviours, one each, then falls back to the default. */
  queue(...behaviors: Behavior[]): void;
  /** Forgets requests and queued behaviours. */
  reset(): void;
  close(): Promise<void>;
}

/** Words of the fake's answer (one stream chunk each). */
export const ANSWER_WORDS = ['Hello', ' from', ' the', ' fake', ' upstream', '.'];
/** Usage the fake reports. */
export const FAKE_USAGE = { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 };

/** A chat.completion body as OpenAI returns it. */
export function completionBody(model: string, text = ANSWER_WORDS.join('')): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake123',
    object: 'chat.completion',
    created: 1767225600,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: FAKE_USAGE,
    system_fingerprint: 'fp_fake',
  };
}

/** One chat.completion.chunk as an SSE frame. */
export function chunkFrame(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-fake123', object: 'chat.completion.chunk', created: 1767225600, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

/** The usage chunk OpenAI sends last when `stream_options.include_usage` is true. */
export function usageFrame(model: string): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-fake123', object: 'chat.completion.chunk', created: 1767225600, model, choices: [], usage: FAKE_USAGE })}\n\n`;
}

/** Opens an SSE answer the way OpenAI does. */
export function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/**
 * OpenAI's behaviour: JSON when `stream` is false; otherwise a role chunk, one chunk per word, a
 * finish chunk, the usage chunk only when `stream_options.include_usage` is true, then [DONE].
 * `gate` (when given) is awaited after the first content chunk, so a test can prove the client
 * saw that chunk while the upstream still held the rest.
 */
export function answerLikeOpenAi(gate?: () => Promise<void>): Behavior {
  return async (req, res) => {
    const model = String(req.body.model);
    if (req.body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completionBody(model)));
      return;
    }
    openStream(res);
    res.write(chunkFrame(model, { role: 'assistant', content: '' }));
    for (const [i, word] of ANSWER_WORDS.entries()) {
      res.write(chunkFrame(model, { content: word }));
      if (i === 0 && gate) await gate();
      if (res.destroyed) return;
    }
    res.write(chunkFrame(model, {}, 'stop'));
    const options = req.body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage === true) res.write(usageFrame(model));
    res.end('data: [DONE]\n\n');
  };
}

/** An OpenAI-style error answer. */
export function answerError(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): Behavior {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error }));
  };
}

/** Never answers (the connection stays open until the gateway gives up or the fake closes). */
export const hang: Behavior = () => undefined;

/**
 * Starts the fake. Every POST body is parsed and checked against OpenAI's
 * CreateChatCompletionRequest; a request the schema rejects is answered 400 (so the gateway's
 * call fails visibly) and kept with its findings for the test to assert on.
 */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: SeenRequest[] = [];
  let queued: Behavior[] = [];
  const fallback = answerLikeOpenAi();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const closed = new Promise<'aborted' | 'finished'>((resolve) => {
        res.once('close', () => resolve(res.writableFinished ? 'finished' : 'aborted'));
      });
      const seen: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, schemaErrors: openAiValidator('CreateChatCompletionRequest')(body), closed };
      requests.push(seen);
      if (seen.schemaErrors.length > 0) {
        answerError(400, { message: `fake upstream: request violates CreateChatCompletionRequest: ${seen.schemaErrors.join('; ')}`, type: 'invalid_request_error', code: 'fake_schema_violation' })(seen, res);
        return;
      }
      const behavior = queued.shift() ?? fallback;
      Promise.resolve(behavior(seen, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    queue: (...behaviors) => { queued.push(...behaviors); },
    reset: () => { requests.length = 0; queued = []; },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
