/**
 * The floor of the gateway's stack, as issue 11 describes it: a plain Koa + @koa/router +
 * koa-body app that parses the body, forwards it with undici, injects `usage.cost` into a JSON
 * answer and writes a stream straight to the socket. No auth, validation, routing, metering or
 * records. Run in the gateway's place under the yardstick to see what this stack costs on the
 * machine at hand:
 *
 *   GATEWAY_CMD="node dist/bench/koa-floor.js" bash ../shared/bench/cpu-per-req.sh
 *
 * It listens on PORT and forwards to OPENAI_BASE_URL, as the script starts the gateway.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Agent, request } from 'undici';
import { YARDSTICK_MODEL_LIST } from './yardstick-models.js';

const upstream = (process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:8081/v1').replace(/\/$/, '');
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000, pipelining: 1 });

const router = new Router();
router.get('/v1/models', (ctx) => {
  ctx.type = 'json';
  ctx.body = YARDSTICK_MODEL_LIST;
});
router.post('/v1/chat/completions', koaBody(), async (ctx) => {
  const body = ctx.request.body as { model?: unknown; stream?: unknown };
  if (typeof body.model === 'string') body.model = body.model.slice(body.model.indexOf('/') + 1);
  const up = await request(`${upstream}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY ?? ''}` },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  if (body.stream === true) {
    ctx.respond = false;
    ctx.res.writeHead(up.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    up.body.on('error', () => ctx.res.destroy());
    up.body.pipe(ctx.res);
    return;
  }
  const answer = await up.body.json() as { usage?: Record<string, unknown> };
  if (answer.usage) answer.usage.cost = 0.000123;
  ctx.status = up.statusCode;
  ctx.body = answer;
});

const app = new Koa();
app.use(router.routes());
app.listen(Number(process.env.PORT ?? 8080), '127.0.0.1');
