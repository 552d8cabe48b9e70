import { compileRequest } from '../request.js';
import { compileResponse } from '../response.js';
import { sendBuilt, type BodyEncoding } from '../send.js';
import { compileTextAnswer } from '../text-answer.js';
import { readJson, throwIfFailed } from '../upstream-errors.js';
import type { Transport } from './transport.js';

/**
 * `json` (JSON request -> JSON answer) and `multipart` (the same body sent as
 * multipart/form-data, media as file parts): the upstream JSON is reshaped by `response`, and
 * answered as plain text instead when `response.text` applies.
 */
function createJsonLikeTransport(name: 'json' | 'multipart', encoding: BodyEncoding): Transport {
  return {
    name,
    compile({ operation, mapping, at, defaultAuth }) {
      const request = compileRequest(mapping, at, { defaultAuth });
      const shape = compileResponse(mapping.response, [...at, 'response']);
      const text = compileTextAnswer(mapping.response?.text, [...at, 'response', 'text']);
      return {
        operations: {
          [operation]: async (call) => {
            const built = await request.build(call);
            const res = await sendBuilt(built, call, encoding, { timeoutMs: mapping.timeout_ms, arrays: mapping.request?.array_parts });
            await throwIfFailed(res, call);
            const body = await shape(await readJson(res, call), call);
            return (text && (await text(body, call))) || { kind: 'json', body };
          },
        },
      };
    },
  };
}

/** JSON in, JSON out. */
export const jsonTransport = createJsonLikeTransport('json', 'json');
/** multipart/form-data in, JSON out. */
export const multipartTransport = createJsonLikeTransport('multipart', 'multipart');
