import { errors } from '../../errors/gateway-error.js';

/** Pixel size. */
export interface Size { width: number; height: number }

/** Longest side of the pixels the sandbox actually draws (requests are scaled down to it). */
export const MAX_RENDER_SIDE = 256;
const DEFAULT_SIDE = 1024;
const RESOLUTION_SIDES: Record<string, number> = { '1k': 1024, '2k': 2048 };

/**
 * The size a client asked for: `size` ('WxH' or 'auto'), else `aspect_ratio` ('W:H') with
 * `resolution` ('1k' | '2k', the longest side), else the source image's size (edits), else
 * 1024x1024. Invalid values -> 400 `invalid_size` / `invalid_aspect_ratio`.
 */
export function resolveRequestedSize(body: Record<string, unknown>, source?: Size): Size {
  const size = body.size;
  if (typeof size === 'string' && size !== 'auto') {
    const match = /^(\d{1,5})\s*[x×]\s*(\d{1,5})$/i.exec(size.trim());
    const width = Number(match?.[1]);
    const height = Number(match?.[2]);
    if (!match || width < 1 || height < 1 || width > 16384 || height > 16384) {
      throw errors.invalidRequest(`size '${size}' is not 'WIDTHxHEIGHT' (e.g. 1024x1024) or 'auto'.`, 'invalid_size', { size });
    }
    return { width, height };
  }
  const resolution = typeof body.resolution === 'string' ? body.resolution.toLowerCase() : undefined;
  if (resolution !== undefined && !(resolution in RESOLUTION_SIDES)) {
    throw errors.invalidRequest(`resolution '${String(body.resolution)}' is not one of 1k, 2k.`, 'invalid_resolution', { resolution: body.resolution });
  }
  const side = resolution ? RESOLUTION_SIDES[resolution]! : DEFAULT_SIDE;
  const ratio = body.aspect_ratio;
  if (typeof ratio === 'string' && ratio !== 'auto') {
    const match = /^(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)$/.exec(ratio.trim());
    const w = Number(match?.[1]);
    const h = Number(match?.[2]);
    if (!match || !(w > 0) || !(h > 0) || w / h > 21 || h / w > 21) {
      throw errors.invalidRequest(`aspect_ratio '${ratio}' is not 'W:H' (e.g. 16:9).`, 'invalid_aspect_ratio', { aspect_ratio: ratio });
    }
    return w >= h ? { width: side, height: Math.max(1, Math.round(side * h / w)) } : { width: Math.max(1, Math.round(side * w / h)), height: side };
  }
  if (source && resolution === undefined) return source;
  if (source) {
    const scale = side / Math.max(source.width, source.height);
    return { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
  }
  return { width: side, height: side };
}

/** The pixels actually drawn: the requested size scaled down so the longest side is at most MAX_RENDER_SIDE. */
export function scaleToRender(size: Size): Size {
  const scale = Math.min(1, MAX_RENDER_SIDE / Math.max(size.width, size.height));
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}
