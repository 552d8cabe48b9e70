import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fake OpenAI-compatible chat upstream that ignores output limits (to prove the gateway's own). */
export interface FakeOpenAi {
  baseUrl: string;
  /** Bodies received, in order. */
  requests: Array<Record<string, unknown>>;
  /** Chunks written to the last stream before it ended (or was aborted). */
  lastStreamChunks: number;
  lastStreamAborted: boolean;
  close(): Promise<void>;
}

/**
 * Answers `words` words (" word" each, one o200k token), streamed one per chunk every `delayMs`
 * with a final usage chunk (prompt_tokens = `promptTokens`), or as one JSON completion.
 */
export async function startFakeOpenAi(options: { words: number; promptTokens: number; delayMs?: number }): Promise<FakeOpenAi> {
  const fake: FakeOpenAi = { baseUrl: '', requests: [], lastStreamChunks: 0, lastStreamAborted: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      fake.requests.push(body);
      const base = { id: 'chatcmpl-fake', created: 1, model: String(body.model) };
      const usage = { prompt_tokens: options.promptTokens, completion_tokens: options.words, total_tokens: options.promptTokens + options.words, prompt_tokens_details: { cached_tokens: 0 } };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: ' word'.repeat(options.words) }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      fake.lastStreamChunks = 0;
      fake.lastStreamAborted = false;
      let i = 0;
      const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      const timer = setInterval(() => {
        if (i < options.words) {
          chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' word' }, finish_reason: null }] });
          fake.lastStreamChunks = ++i;
          return;
        }
        clearInterval(timer);
        chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        chunk({ ...base, object: 'chat.completion.chunk', choices: [], usage });
        res.end('data: [DONE]\n\n');
      }, options.delayMs ?? 1);
      res.on('close', () => {
        if (i < options.words) fake.lastStreamAborted = true;
        clearInterval(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return fake;
}
