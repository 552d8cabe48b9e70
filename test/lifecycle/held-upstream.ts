import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI chat completions upstream whose streams are held open: each streamed call
 * sends its role chunk and first content chunk at once, then waits until the test calls
 * `release()` to send the rest (content, finish chunk, usage, `[DONE]`), in OpenAI's wire format
 * (https://platform.openai.com/docs/api-reference/chat-streaming).
 */
export interface HeldUpstream {
  url: string;
  /** Streams currently held open. */
  readonly held: number;
  /** Authorization headers received, in order. */
  readonly authorizations: string[];
  /** Resolves when `n` streams are held. */
  waitHeld(n: number): Promise<void>;
  /** Finishes every held stream. */
  release(): void;
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1767225600, model: 'slow-1', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;

/** Starts the held upstream on 127.0.0.1; with `holdJson`, non-streamed calls are held too (no answer until released). */
export async function startHeldUpstream(options: { holdJson?: boolean } = {}): Promise<HeldUpstream> {
  const heldJson: ServerResponse[] = [];
  const waiting: ServerResponse[] = [];
  const heldWatchers = new Set<() => void>();
  const authorizations: string[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    let raw = '';
    req.on('data', (b: Buffer) => { raw += b.toString('utf8'); });
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { stream?: boolean };
      if (!body.stream && options.holdJson) {
        heldJson.push(res);
        for (const w of heldWatchers) w();
        return;
      }
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion', created: 1767225600, model: 'slow-1', choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'first ' }));
      waiting.push(res);
      for (const w of heldWatchers) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get held() { return waiting.length + heldJson.length; },
    authorizations,
    waitHeld: (n) => new Promise<void>((resolve) => {
      const check = () => { if (waiting.length + heldJson.length >= n) { heldWatchers.delete(check); resolve(); } };
      heldWatchers.add(check);
      check();
    }),
    release() {
      for (const res of heldJson.splice(0)) if (!res.destroyed) res.end();
      for (const res of waiting.splice(0)) {
        if (res.destroyed) continue;
        res.end(chunk({ content: 'second' }) + chunk({}, 'stop') + chunk({}, null, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }) + 'data: [DONE]\n\n');
      }
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
