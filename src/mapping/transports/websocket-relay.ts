import type { OperationCall, OperationServices, RealtimeClaims, RealtimeUpstream } from '../../providers/types.js';
import { createRealtimeSession } from '../../providers/sandbox/realtime-sessions.js';
import { relayWebSocket } from '../../providers/realtime-relay/index.js';
import { compileRequest } from '../request.js';
import { authorizeCall } from '../send.js';
import type { Transport } from './transport.js';

/**
 * `websocket-relay` (realtime): the operation signs a URL of the gateway's own WebSocket (the
 * same answer as the sandbox's); once the engine has verified that URL on upgrade, the
 * session is relayed to `base_url` (http -> ws) + `path` + `query` with the provider's
 * credentials (its key header, then its deployment's authorizer, as on every call), and closed
 * at the session's `max_duration_seconds`. Nothing reaches the provider before the signed URL
 * is verified.
 */
export const websocketRelayTransport: Transport = {
  name: 'websocket-relay',
  compile({ operation, mapping, at, defaultAuth }) {
    const request = compileRequest({ ...mapping, method: 'GET', request: undefined }, at, { defaultAuth });
    return {
      operations: { [operation]: (call) => createRealtimeSession(call) },
      openRealtime: (socket, claims, upstream) => {
        const call = relayCall(claims, upstream);
        void request.build(call).then(
          async (built) => {
            try {
              await authorizeCall(call, built.url, 'GET', built.headers);
            } catch {
              return socket.close(1011, 'upstream_auth_error');
            }
            const url = new URL(built.url);
            url.protocol = url.protocol === 'https:' ? 'wss:' : url.protocol === 'http:' ? 'ws:' : url.protocol;
            relayWebSocket(socket, { url: url.toString(), headers: built.headers, maxDurationSeconds: claims.max_duration_seconds });
          },
          () => socket.close(1011, 'relay_not_configured'),
        );
      },
    };
  },
};

/** The call a relay's URL is built from: no client body, the session's model. */
function relayCall(claims: RealtimeClaims, upstream: RealtimeUpstream): OperationCall {
  const unavailable = (): never => {
    throw new Error('no services while building a relay URL');
  };
  const services: OperationServices = {
    files: { put: unavailable, get: unavailable, read: unavailable },
    jobs: { save: unavailable, get: unavailable },
    realtime: { sign: unavailable, verify: unavailable },
    fetchMedia: unavailable,
  };
  return {
    operation: 'realtime.relay',
    body: {},
    model: { id: claims.model, provider: upstream.providerName, upstream: upstream.upstreamModel, endpoints: [] },
    providerName: upstream.providerName,
    provider: upstream.provider,
    apiKey: upstream.apiKey,
    baseUrl: upstream.baseUrl,
    access: upstream.access,
    signal: new AbortController().signal,
    timeoutMs: 15_000,
    owner: claims.owner,
    services,
  };
}
