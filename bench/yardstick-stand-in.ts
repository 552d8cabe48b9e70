/**
 * Lets the yardstick's own bare proxy stand in for the gateway, so `cpu-per-req.sh` measures
 * the bare proxy against itself: the noise floor of the method on this machine. A preload
 * (`node --import`) for ../shared/bench/baseline-proxy.cjs:
 *
 *   GATEWAY_CMD="node --import ./dist/bench/yardstick-stand-in.js ../shared/bench/baseline-proxy.cjs" \
 *     bash ../shared/bench/cpu-per-req.sh
 *
 * The script starts "the gateway" with PORT and OPENAI_BASE_URL, and asks it for GET /v1/models
 * to pick a model; the proxy reads PROXY_PORT and UPSTREAM and knows no model list. So this maps
 * the one pair of variables to the other, answers the model list with one OpenAI model, and
 * points NODE_PATH where the script installed the proxy's undici (BENCH_DEPS), as it does for
 * the baseline: both sides then run the same code, and a ratio away from 1.00x is noise.
 */
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { YARDSTICK_MODEL_LIST } from './yardstick-models.js';

if (process.env.PORT && !process.env.PROXY_PORT) process.env.PROXY_PORT = process.env.PORT;
if (process.env.OPENAI_BASE_URL && !process.env.UPSTREAM) process.env.UPSTREAM = process.env.OPENAI_BASE_URL.replace(/\/v1\/?$/, '');
if (!process.env.NODE_PATH) {
  process.env.NODE_PATH = join(process.env.BENCH_DEPS ?? join(homedir(), '.cache/gateway-bench'), 'node_modules');
  // CommonJS reads NODE_PATH once at startup; this preload runs after that.
  (createRequire(import.meta.url)('node:module') as { _initPaths(): void })._initPaths();
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
const createServer = http.createServer;
// Every server this process creates answers GET /v1/models first; everything else is the proxy's.
(http as { createServer: (...args: unknown[]) => http.Server }).createServer = (...args: unknown[]) => {
  const at = args.findIndex((a) => typeof a === 'function');
  if (at >= 0) {
    const inner = args[at] as Listener;
    args[at] = ((req, res) => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(YARDSTICK_MODEL_LIST);
        return;
      }
      inner(req, res);
    }) satisfies Listener;
  }
  return (createServer as (...a: unknown[]) => http.Server)(...args);
};
