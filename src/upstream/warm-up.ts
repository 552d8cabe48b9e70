import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newUpstreamAgent } from './call-upstream.js';
import { dispatchUpstream } from './upstream-body.js';

/** How long the warm-up may take before it is given up (it is best effort). */
const WARM_UP_TIMEOUT_MS = 1000;

/**
 * Sends one JSON request through a throwaway upstream agent and the gateway's one dispatch
 * path (upstream-body.ts) to a loopback server of its own, then closes both. `gateway serve`
 * runs it before reporting ready, so the first burst of traffic does not also pay for what a
 * process's first HTTP exchange costs once: undici compiles its HTTP parser (WebAssembly) on
 * its first connection, and the client's and the server's request code runs for the first
 * time (cold code runs in V8's interpreter). With the scavenge after it (server/startup-gc.ts),
 * the longest event-loop delay of the first 16-connection burst after a start went from
 * 9.1–25.2 ms to 5.6–14.6 ms (docs/performance.md).
 * Never throws: a start without it is only colder.
 */
export async function warmUpHttpClient(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"object":"warm-up"}');
    });
  });
  const agent = newUpstreamAgent(WARM_UP_TIMEOUT_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const res = await dispatchUpstream(agent, {
      origin: `http://127.0.0.1:${port}`,
      path: '/warm-up',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"warm":true}',
      headersTimeout: WARM_UP_TIMEOUT_MS,
      bodyTimeout: WARM_UP_TIMEOUT_MS,
    });
    await res.body.json();
  } catch {
    // Best effort (no loopback, say): nothing the gateway serves depends on it.
  } finally {
    await agent.close().catch(() => undefined);
    // Resolved once every connection is gone, so the warm-up leaves no socket behind.
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
