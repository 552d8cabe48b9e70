import type { OperationCall, OperationResult } from '../types.js';
import { readInteger, requireString } from './body-fields.js';
import { hashParts } from './hash.js';
import type { LoadedImage } from './image-inputs.js';
import { renderPng } from './image-render.js';
import { resolveRequestedSize, scaleToRender } from './image-size.js';

/**
 * The shared body of `images.generations` and `images.edits`: `n` deterministic PNGs seeded by
 * prompt, seed, image index and the hashes of the source images, returned as `b64_json`
 * (default) or `url` (a data: URL). `size` reports the requested size; the PNG itself is drawn
 * at most MAX_RENDER_SIDE pixels on its longest side (the sandbox keeps payloads small).
 * `output_format` is always `png` whatever was asked.
 */
export function composeImagesResponse(call: OperationCall, sources: readonly LoadedImage[]): OperationResult {
  const body = call.body;
  const prompt = requireString(body, 'prompt');
  const n = readInteger(body, 'n', 1, 6) ?? 1;
  const seed = readInteger(body, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) ?? 0;
  const first = sources[0]?.info;
  const sourceSize = first?.width && first.height ? { width: first.width, height: first.height } : undefined;
  const requested = resolveRequestedSize(body, sourceSize);
  const drawn = scaleToRender(requested);
  const transparent = body.background === 'transparent';
  const sourceHash = hashParts(...sources.map((s) => s.bytes));
  const asUrl = body.response_format === 'url';
  const data = Array.from({ length: n }, (_, index) => {
    const png = Buffer.from(renderPng(drawn.width, drawn.height, hashParts(call.model.id, prompt, String(seed), String(index), sourceHash), transparent));
    const b64 = png.toString('base64');
    return asUrl ? { url: `data:image/png;base64,${b64}`, revised_prompt: prompt } : { b64_json: b64, revised_prompt: prompt };
  });
  const response: Record<string, unknown> = {
    created: Math.floor(Date.now() / 1000),
    data,
    output_format: 'png',
    size: `${requested.width}x${requested.height}`,
  };
  if (transparent) response.background = 'transparent';
  return { kind: 'json', body: response };
}
