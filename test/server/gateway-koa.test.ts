import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { GatewayKoa } from '../../src/server/gateway-koa.js';

describe('server/gateway-koa', () => {
  let server: Server;
  let url: string;
  before(async () => {
    const app = new GatewayKoa();
    app.silent = true;
    app.use(async (ctx) => {
      if (ctx.path === '/direct') {
        ctx.respond = false;
        ctx.res.statusCode = 200;
        ctx.res.setHeader('content-type', 'text/plain');
        ctx.res.end('written directly');
      } else if (ctx.path === '/created') {
        ctx.status = 201;
        ctx.body = { made: true };
      } else if (ctx.path === '/teapot') {
        ctx.status = 418;
        ctx.body = 'short and stout';
      } else if (ctx.path === '/empty') {
        ctx.status = 204;
      } else if (ctx.path === '/throws') {
        throw Object.assign(new Error('nope'), { status: 409, expose: true });
      }
      // anything else: no body, Koa's 404
    });
    server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('leaves an answer the middleware wrote itself as it was written', async () => {
    const res = await fetch(`${url}/direct`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('written directly');
  });

  it('answers ctx.body through Koa with the status the middleware set', async () => {
    const created = await fetch(`${url}/created`);
    expect(created.status).to.equal(201);
    expect(await created.json()).to.deep.equal({ made: true });
    const teapot = await fetch(`${url}/teapot`);
    expect(teapot.status).to.equal(418);
    expect(await teapot.text()).to.equal('short and stout');
    const empty = await fetch(`${url}/empty`);
    expect(empty.status).to.equal(204);
    expect(await empty.text()).to.equal('');
  });

  it("keeps Koa's HEAD handling, its 404 and its error answer", async () => {
    const head = await fetch(`${url}/created`, { method: 'HEAD' });
    expect(head.status).to.equal(201);
    expect(head.headers.get('content-length')).to.equal(String(JSON.stringify({ made: true }).length));
    expect((await fetch(`${url}/nowhere`)).status).to.equal(404);
    const thrown = await fetch(`${url}/throws`);
    expect(thrown.status).to.equal(409);
    expect(await thrown.text()).to.equal('nope');
  });
});
