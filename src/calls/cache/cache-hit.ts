import type { ServerResponse } from 'node:http';
import { COST_HEADER, costComment, injectCostIntoBody, injectCostIntoFrame } from '../../billing/frame-cost.js';
import type { SseFrame, SurfaceCodec } from '../../codecs/codec.js';
import type { Usage } from '../../codecs/internal.js';
import { writeSseFrame } from '../../sse-frame.js';
import { replayEvents } from './answer-collector.js';
import { CACHE_HEADER, CACHE_SIMILARITY_HEADER } from './cache-plan.js';
import type { CacheHit } from './response-cache.js';

/** What a hit tells the request record (ledger row, metrics). */
export interface CacheHitFacts {
  readonly model: string;
  readonly provider: string;
  /** The stored answer's token usage (kept in the body so clients do not break; billed 0). */
  readonly usage?: Usage;
  /** What the answer cost when it was made: the saving of this hit. */
  readonly savedUsd: number;
  readonly streamed: boolean;
}

/**
 * Answers a request from a stored answer, in the client's format and mode: a text answer is
 * encoded by the route's surface for this request (JSON, or a well-formed stream with the
 * usage chunk when asked for and the terminators such as `[DONE]`), another operation's body
 * as it was stored. The cost is 0 (`x-gateway-cost: 0`, `usage.cost: 0`); the token usage is
 * the original one. A semantic hit says so (`x-gateway-cache: semantic-hit`) with the stored
 * prompt's similarity. Written in one `end()`; `headers` are the gateway's own.
 */
export function writeCacheHit(res: ServerResponse, hit: CacheHit, surface: SurfaceCodec | undefined, headers: Record<string, string>): CacheHitFacts {
  const { record } = hit;
  res.statusCode = 200;
  for (const name in headers) res.setHeader(name, headers[name]!);
  if (hit.similarity === undefined) res.setHeader(CACHE_HEADER, 'hit');
  else {
    res.setHeader(CACHE_HEADER, 'semantic-hit');
    res.setHeader(CACHE_SIMILARITY_HEADER, hit.similarity.toFixed(3));
  }
  res.setHeader('age', String(hit.ageSeconds));
  res.setHeader('x-gateway-model', record.model);
  res.setHeader('x-gateway-provider', record.provider);
  res.setHeader('x-gateway-attempts', '0');
  res.setHeader(COST_HEADER, '0');
  const facts = { model: record.model, provider: record.provider, savedUsd: record.costUsd };
  if (record.kind === 'text' && surface && hit.request) {
    const request = hit.request;
    if (request.stream) {
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('x-accel-buffering', 'no');
      const encoder = surface.createStreamEncoder(request);
      let text = '';
      const add = (frames: readonly SseFrame[]) => { for (const f of frames) text += writeSseFrame(injectCostIntoFrame(f, 0)); };
      for (const event of replayEvents(record.answer)) add(encoder.encode(event));
      // The cost comment goes before the closing frames ([DONE] stays the last data line), as in live streams.
      text += costComment('0');
      add(encoder.end());
      res.end(text);
      return { ...facts, usage: record.answer.usage, streamed: true };
    }
    sendJson(res, surface.encodeResponse(record.answer, request));
    return { ...facts, usage: record.answer.usage, streamed: false };
  }
  sendJson(res, record.kind === 'json' ? record.body : {});
  return { ...facts, usage: record.kind === 'json' ? record.usage : undefined, streamed: false };
}

function sendJson(res: ServerResponse, body: unknown): void {
  injectCostIntoBody(body, 0);
  const text = JSON.stringify(body);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
