import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../codecs/codec.js';
import { isRecord } from '../codecs/shared/json.js';
import { formatUsd } from './usd.js';
import { withData } from '../codecs/shared/sse-frame.js';

/**
 * Writes `usage.cost` (USD) into response bodies and stream frames, whatever the surface: the
 * usage object is found at `usage` (chat, messages message_delta, research, robotics ...),
 * `response.usage` (responses events) or `message.usage` (messages message_start).
 */

/** Name of the SSE comment and HTTP trailer that carry a stream's cost. */
export const COST_HEADER = 'x-gateway-cost';

/** Sets `cost` on the body's usage object; false when the body has none. */
export function injectCostIntoBody(body: unknown, costUsd: number): boolean {
  if (!isRecord(body)) return false;
  const usage = isRecord(body.usage) ? body.usage
    : isRecord(body.response) && isRecord(body.response.usage) ? body.response.usage
      : isRecord(body.message) && isRecord(body.message.usage) ? body.message.usage
        : undefined;
  if (!usage) return false;
  usage.cost = costUsd;
  return true;
}

// `"usage":{` or `"usage": {` in one pass (two `includes` of quote-led needles scan twice).
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/** Whether a frame may carry a usage object (cheap text test before any parsing). */
export function frameMayCarryUsage(frame: SseFrame): boolean {
  return USAGE_OBJECT.test(frame.data);
}

/** The frame with `usage.cost` set, or the frame unchanged when it carries no usage object. */
export function injectCostIntoFrame(frame: SseFrame, costUsd: number): SseFrame {
  if (!frameMayCarryUsage(frame)) return frame;
  let body: unknown;
  try {
    body = JSON.parse(frame.data);
  } catch {
    return frame;
  }
  return injectCostIntoBody(body, costUsd) ? withData(frame, JSON.stringify(body)) : frame;
}

/** The SSE comment line that ends a stream with its cost (ignored by SSE clients that skip comments). */
export function costComment(costText: string): string {
  return `: ${COST_HEADER}: ${costText}\n\n`;
}

/**
 * Ends a stream's billing on the wire: the cost as a closing SSE comment (read by raw clients;
 * SDKs skip comments) and as the `x-gateway-cost` HTTP trailer (announced by a `Trailer`
 * response header). Nothing is written once the response has ended.
 */
export function writeCostTrailer(res: ServerResponse, costUsd: number): void {
  if (res.writableEnded || res.destroyed) return;
  const text = formatUsd(costUsd);
  res.write(costComment(text));
  res.addTrailers({ [COST_HEADER]: text });
}
