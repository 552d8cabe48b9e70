import type { OperationCall, OperationResult } from '../providers/types.js';
import { compilePath, readPath } from './paths.js';
import { BASE_VARIABLES } from './request.js';
import { responseScope } from './response.js';
import type { ResponseSpec } from './types.js';
import { compileFields, createSpecContext, matchesWhen } from './value-spec.js';

/** Turns a normalized JSON answer into a plain-text one, or returns undefined when the request did not ask for text. */
export type TextAnswer = (body: Record<string, unknown>, call: OperationCall) => Promise<OperationResult | undefined>;

/**
 * Compiles `response.text` (json and multipart transports): when the client body matches
 * `when` (e.g. OpenAI's `response_format: text`), the answer is one field of the normalized
 * body as `text/plain`, with optional headers read from that body (billing reads
 * `x-audio-duration-seconds`, since a text answer carries no usage object).
 */
export function compileTextAnswer(spec: ResponseSpec['text'], at: ReadonlyArray<string | number>): TextAnswer | undefined {
  if (!spec) return undefined;
  const path = compilePath(spec.from);
  const headers = spec.headers ? compileFields(spec.headers, [...at, 'headers'], createSpecContext(BASE_VARIABLES, false)) : undefined;
  return async (body, call) => {
    if (!matchesWhen(spec.when, call.body)) return undefined;
    const value = readPath(body, path.segments);
    const built = headers ? await headers(responseScope(body, call)) : {};
    const headerValues = Object.fromEntries(Object.entries(built).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));
    return {
      kind: 'bytes',
      contentType: 'text/plain; charset=utf-8',
      body: new Uint8Array(Buffer.from(value === undefined || value === null ? '' : String(value), 'utf8')),
      ...(Object.keys(headerValues).length > 0 ? { headers: headerValues } : {}),
    };
  };
}
