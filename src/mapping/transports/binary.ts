import { toMedia } from '../media.js';
import { BASE_VARIABLES, compileRequest } from '../request.js';
import { compileResponseValue, matchesWhen, responseScope } from '../response.js';
import { sendBuilt } from '../send.js';
import { readBytes, throwIfFailed } from '../upstream-errors.js';
import { compileFields, createSpecContext } from '../value-spec.js';
import type { Transport } from './transport.js';

/**
 * `binary`: JSON request -> raw bytes (speech, music). The upstream body is streamed to the
 * client as it arrives, with the upstream's Content-Type (or `response.content_type`). With
 * `response.envelope` the bytes are read whole and answered as JSON instead, always or when the
 * client body matches `envelope.when` (e.g. `response_format: json`); its fields see the bytes as
 * `$bytes` (`$bytes.base64`, `$bytes.content_type`, `$bytes.size`).
 */
export const binaryTransport: Transport = {
  name: 'binary',
  compile({ operation, mapping, at, defaultAuth }) {
    const request = compileRequest(mapping, at, { defaultAuth });
    const contentType = compileResponseValue(mapping.response?.content_type, [...at, 'response', 'content_type']);
    const envelope = mapping.response?.envelope;
    const envelopeFields = envelope ? compileFields(envelope.body, [...at, 'response', 'envelope', 'body'], createSpecContext(BASE_VARIABLES, false)) : undefined;
    return {
      operations: {
        [operation]: async (call) => {
          const built = await request.build(call);
          const res = await sendBuilt(built, call, 'json', { timeoutMs: mapping.timeout_ms, accept: '*/*' });
          await throwIfFailed(res, call);
          const upstreamType = res.header('content-type');
          const chosen = contentType ? await contentType(responseScope({ content_type: upstreamType }, call)) : undefined;
          const type = typeof chosen === 'string' && chosen ? chosen : upstreamType ?? 'application/octet-stream';
          if (envelope && envelopeFields && matchesWhen(envelope.when, call.body)) {
            const media = toMedia(await readBytes(res, call), type, 'audio');
            return { kind: 'json', body: await envelopeFields(responseScope({ content_type: type }, call, {}, media)) };
          }
          return { kind: 'bytes', contentType: type, body: res.body.toReadable() };
        },
      },
    };
  },
};
