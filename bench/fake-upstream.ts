/**
 * Benchmark upstream (run as its own process): a fake provider on 127.0.0.1 that answers
 * - `POST /v1/chat/completions` like OpenAI: a chat.completion, or (stream: true) a role chunk,
 *   CHUNKS content chunks, a finish chunk, the usage chunk when `stream_options.include_usage`,
 *   and `[DONE]`;
 * - `POST /v1/messages` like Anthropic: a message, or (stream: true) message_start,
 *   content_block_start, CHUNKS content_block_delta, content_block_stop, message_delta, message_stop.
 * Each chunk is its own write, so whoever sits in between sees CHUNKS separate SSE events.
 * Prints `READY <port>` on stdout once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHUNKS, TEXT, WORDS } from './fake-upstream-shape.js';

const USAGE = { prompt_tokens: 42, completion_tokens: CHUNKS, total_tokens: 42 + CHUNKS };

function openAiChunk(model: string, delta: Record<string, unknown>, finish: string | null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

function answerOpenAi(body: Record<string, unknown>, res: ServerResponse): void {
  const model = String(body.model ?? 'bench');
  if (body.stream !== true) {
    const json = JSON.stringify({
      id: 'chatcmpl-bench', object: 'chat.completion', created: 1767225600, model,
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: USAGE,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
    return;
  }
  const usage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  writeStream(res, `openai ${usage ? 1 : 0} ${model}`, () => {
    const events = [openAiChunk(model, { role: 'assistant', content: '' }, null), ...WORDS.map((word) => openAiChunk(model, { content: word }, null)), openAiChunk(model, {}, 'stop')];
    if (usage) events.push(`data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600, model, choices: [], usage: USAGE })}\n\n`);
    events.push('data: [DONE]\n\n');
    return events;
  });
}

// Streams are serialized once per kind, model and usage flag, as ../shared/bench/mock-upstream.cjs
// does: an upstream that serializes every event of every answer is slow enough on a shared core
// that its answers reach the server in several reads, which changes what the servers measured
// here cost per stream (the bare proxy's streams read ~20-30 µs dearer than under the yardstick).
const serializedStreams = new Map<string, readonly Buffer[]>();

/** Writes a stream's events, one write each (serialized by `events` the first time `key` is asked). */
function writeStream(res: ServerResponse, key: string, events: () => string[]): void {
  let chunks = serializedStreams.get(key);
  if (!chunks) serializedStreams.set(key, (chunks = events().map((e) => Buffer.from(e))));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks) res.write(chunk);
  res.end();
}

function anthropicEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function answerAnthropic(body: Record<string, unknown>, res: ServerResponse): void {
  const model = String(body.model ?? 'bench');
  const usage = { input_tokens: USAGE.prompt_tokens, output_tokens: CHUNKS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (body.stream !== true) {
    const json = JSON.stringify({ id: 'msg_bench', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: TEXT }], stop_reason: 'end_turn', stop_sequence: null, usage });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
    return;
  }
  writeStream(res, `anthropic ${model}`, () => [
    anthropicEvent('message_start', { message: { id: 'msg_bench', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...WORDS.map((word) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } })),
    anthropicEvent('content_block_stop', { index: 0 }),
    anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: CHUNKS } }),
    anthropicEvent('message_stop', {}),
  ]);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad json","type":"invalid_request_error"}}');
      return;
    }
    if (req.url === '/v1/chat/completions') return answerOpenAi(body, res);
    if (req.url === '/v1/messages') return answerAnthropic(body, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"not_found_error"}}');
  });
}

const server = createServer({ keepAliveTimeout: 65_000 }, handle);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
