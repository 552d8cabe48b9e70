import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../compile/runtime.js';
import { GatewayError } from '../errors/gateway-error.js';
import { envelopeOf, renderError } from './envelope.js';

/**
 * Answers requests that arrive while the shared services (store connections) come up, before
 * the pipeline serves: /healthz 200 (the process is alive), /readyz 503 `starting`, anything
 * else 503 `starting` with `Retry-After`, in the route's envelope. Probe paths come from the
 * route files (handlers `health` and `readiness`), as for the running pipeline.
 */
export function answerWhileStarting(runtime: Runtime): (req: IncomingMessage, res: ServerResponse) => void {
  const probes = new Map(runtime.routes.filter((r) => r.spec.method === 'GET').map((r) => [r.spec.path, r.spec.handler]));
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const handler = req.method === 'GET' ? probes.get(path) : undefined;
    if (handler === 'health') return send(res, 200, { status: 'ok' }, {});
    if (handler === 'readiness') return send(res, 503, { status: 'starting' }, {});
    const error = new GatewayError(503, 'api_error', 'starting', 'The gateway is starting; retry shortly.', undefined, { 'Retry-After': '1' });
    const rendered = renderError(error, envelopeOf(undefined, path));
    // The body is not read: drop it rather than let it hold the connection.
    req.resume();
    send(res, rendered.status, rendered.body, rendered.headers);
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
