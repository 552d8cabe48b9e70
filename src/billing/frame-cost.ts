import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../codecs/codec.js';
import { isRecord } from '../codecs/shared/json.js';
import { formatUsd } from './usd.js';
import { withData } from '../sse-frame.js';

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
  const edited = insertTopLevelCost(frame.data, costUsd);
  if (edited !== undefined) return withData(frame, edited);
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
 * A stream's billing on the wire: the cost as a closing SSE comment (read by raw clients; SDKs
 * skip comments), a frame the writer sends with the stream's last frames, and as the
 * `x-gateway-cost` HTTP trailer (announced by a `Trailer` response header), set here. Nothing
 * is set once the response has ended.
 */
export function closeWithCost(res: ServerResponse, costUsd: number): SseFrame {
  const text = formatUsd(costUsd);
  if (!res.writableEnded && !res.destroyed) res.addTrailers({ [COST_HEADER]: text });
  return { data: '', raw: costComment(text) };
}

const USAGE_KEY = '"usage":{';

/**
 * The frame's JSON text with `"cost":<usd>` put first in its top-level usage object, edited in
 * place (every stream's usage frame went through a parse and a stringify for one number), or
 * undefined when only a parse can tell where the cost goes: no compact `"usage":{`, more than
 * one, one below the top level (Responses `response.usage`, messages `message.usage`), or a
 * `"cost"` key after it (an upstream's own, which the parse path replaces). A quoted key cannot
 * match inside a JSON string, whose quotes are escaped.
 */
function insertTopLevelCost(data: string, costUsd: number): string | undefined {
  const at = data.indexOf(USAGE_KEY);
  if (at < 0 || data.includes(USAGE_KEY, at + USAGE_KEY.length) || data.includes('"cost"', at) || depthAt(data, at) !== 1) return undefined;
  const open = at + USAGE_KEY.length;
  let next = open;
  while (next < data.length && data.charCodeAt(next) <= 32) next++;
  const cost = `"cost":${JSON.stringify(costUsd)}`;
  return data.slice(0, open) + (data.charCodeAt(next) === 125 /* } */ ? cost : `${cost},`) + data.slice(open);
}

/** How many objects and arrays are open at `end` in JSON text (strings skipped). */
function depthAt(text: string, end: number): number {
  let depth = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < end; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return depth;
}
