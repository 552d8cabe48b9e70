/**
 * A plain web host of media files (what a client's `image_url` points at), served by a kit
 * upstream so fetches on a client's behalf get the kit's faults and request log too. It is not a
 * provider: it checks no key and a missing path is an ordinary 404.
 */
import type { HandlerDialect, HandlerReply } from '../handler.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** The answer of one path (may wait, e.g. a slow host). */
export type MediaRoute = () => HandlerReply | Promise<HandlerReply>;

/** A running media host. */
export type MediaHost = ProviderUpstream<Record<never, never>>;

/** The media host's dialect: GET of a path in `routes`, else the `*` route, else 404. */
export function mediaHostHandler(routes: Record<string, MediaRoute>): HandlerDialect {
  return {
    name: 'media-host',
    match: (method) => method === 'GET' || method === 'HEAD',
    handle: (req) => (routes[req.path] ?? routes['*'])?.() ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no' },
    errorBody: (_status, message) => ({ error: message }),
  };
}

/** Starts a media host serving `routes` by path. */
export async function startMediaHost(routes: Record<string, MediaRoute>): Promise<MediaHost> {
  return startProviderUpstream('media-host', '', [mediaHostHandler(routes)], {});
}
