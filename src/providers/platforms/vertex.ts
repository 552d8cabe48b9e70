import type { DialectRequest } from '../../codecs/codec.js';
import { upstreamNameOf } from '../../config/model-name.js';
import type { Placement, Platform, RequestShaper } from './types.js';

/** The body version Claude on Vertex AI takes (instead of the `anthropic-version` header). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
/** Location used when a provider names none: Google's multi-region endpoint. */
const DEFAULT_LOCATION = 'global';

/** `https://<location>-aiplatform.googleapis.com`, or the host without prefix for `global`. */
export function vertexHost(location: string | undefined): string {
  const l = location || DEFAULT_LOCATION;
  return l === 'global' ? 'https://aiplatform.googleapis.com' : `https://${l}-aiplatform.googleapis.com`;
}

/** `/v1/projects/<p>/locations/<l>/publishers/<publisher>/models/` */
function modelsPrefix(place: Placement, publisher: 'google' | 'anthropic'): string {
  return `/v1/projects/${encodeURIComponent(place.project ?? '')}/locations/${encodeURIComponent(place.location || DEFAULT_LOCATION)}/publishers/${publisher}/models/`;
}

/** Gemini: the Developer API path `/v1beta/models/<m>:<method>` moves under the project's publisher models. */
function geminiShaper(place: Placement): RequestShaper {
  const prefix = modelsPrefix(place, 'google');
  return (req) => ({ ...req, path: req.path.replace(/^\/v1beta\/models\//, prefix) });
}

/**
 * Claude: `rawPredict` / `streamRawPredict` on the publisher model; the body is the Messages
 * body without `model` (it is in the path) and with `anthropic_version: vertex-2023-10-16`.
 * `stream` stays in the body (the method name also says it), as Anthropic's Vertex SDK sends it.
 */
function anthropicShaper(place: Placement): RequestShaper {
  const prefix = modelsPrefix(place, 'anthropic');
  return (req, call): DialectRequest => {
    if (req.path !== '/v1/messages') return req;
    const { model: _model, ...rest } = req.body;
    const body: Record<string, unknown> = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
    // Vertex model ids carry an `@YYYYMMDD` version, which stays readable in the path.
    const model = encodeURIComponent(upstreamNameOf(call.model)).replace(/%40/g, '@');
    return { ...req, path: `${prefix}${model}:${body.stream === true ? 'streamRawPredict' : 'rawPredict'}`, body };
  };
}

/** Google Vertex AI: Gemini and Claude publisher models under a project and location. */
export const vertexPlatform: Platform = {
  name: 'vertex',
  types: ['gemini', 'anthropic-messages'],
  requires: ['project'],
  authTypes: ['google'],
  defaultBaseUrl: (place) => vertexHost(place.location),
  missing: (place, provider) => (place.project ? undefined : `providers.${provider}.project (the Google Cloud project, e.g. from GOOGLE_CLOUD_PROJECT)`),
  shaper: (type, place) => (type === 'gemini' ? geminiShaper(place) : type === 'anthropic-messages' ? anthropicShaper(place) : undefined),
};
