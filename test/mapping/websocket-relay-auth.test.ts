import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { openAiChatDialect } from '../../src/codecs/openai-chat/index.js';
import type { ProviderSpec } from '../../src/config/types.js';
import { websocketRelayTransport } from '../../src/mapping/transports/websocket-relay.js';
import { resolveDeployment } from '../../src/providers/access.js';
import type { RealtimeClaims } from '../../src/providers/types.js';

/** A WebSocket server on 127.0.0.1 that records each handshake's headers and URL. */
async function listen(onConnection: (socket: WebSocket, headers: IncomingHttpHeaders, url: string) => void): Promise<{ server: WebSocketServer; url: string }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (socket, req) => onConnection(socket, req.headers, req.url ?? ''));
  return { server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('mapping/websocket-relay: the handshake carries the provider credentials of the auth framework', () => {
  it("sends an api_key provider's key in its auth.header with its prefix, not the type's Bearer header", async () => {
    const seen: Array<{ headers: IncomingHttpHeaders; url: string }> = [];
    const upstream = await listen((socket, headers, url) => {
      seen.push({ headers, url });
      socket.close(1000, 'bye');
    });
    const base = upstream.url.replace('ws:', 'http:');
    const spec = { type: 'openai-chat', base_url: `${base}/v1`, auth: { type: 'api_key', api_key_env: 'RT_KEY', header: 'api-key', prefix: 'Key ' } } as ProviderSpec;
    const deployment = resolveDeployment('rt', spec, undefined, { RT_KEY: 'rt-secret-1' }, true);
    const compiled = websocketRelayTransport.compile({ providerName: 'rt', operation: 'realtime.sessions', mapping: { transport: 'websocket-relay', path: '/realtime', query: { model: '{upstream_model}' } }, at: [], defaultAuth: openAiChatDialect.authHeaders });
    const claims: RealtimeClaims = { session: 's1', model: 'rt/realtime-1', owner: 'o', exp: Math.floor(Date.now() / 1000) + 60, max_duration_seconds: 5, max_budget_usd: 1 };
    const gateway = await listen((socket) => compiled.openRealtime!(socket, claims, { providerName: 'rt', provider: spec, apiKey: deployment.apiKey, baseUrl: deployment.baseUrl, upstreamModel: 'realtime-1', access: deployment.access }));
    const client = new WebSocket(gateway.url);
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('close', () => resolve());
        client.once('error', reject);
      });
      expect(seen).to.have.length(1);
      expect(seen[0]!.url).to.equal('/v1/realtime?model=realtime-1');
      expect(seen[0]!.headers['api-key']).to.equal('Key rt-secret-1');
      expect(seen[0]!.headers.authorization).to.equal(undefined);
    } finally {
      client.terminate();
      gateway.server.close();
      upstream.server.close();
    }
  });
});
