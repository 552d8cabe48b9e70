/**
 * WebSocket mode of /v1/responses runs each turn in the gateway's own process, through the same
 * request steps as an HTTP request: no second connection to the gateway, and one access log
 * line per turn as for POST /v1/responses (the key, the status, the cost; not cut short).
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { CLIENT_KEY, startObserved, type ObservedGateway } from '../../observability/support.js';

type Event = { type: string; response?: { id: string } };

/** Sends one response.create and collects events up to the final one. */
function turn(ws: WebSocket, input: string): Promise<Event[]> {
  return new Promise((resolve, reject) => {
    const events: Event[] = [];
    const onMessage = (data: WebSocket.RawData) => {
      const event = JSON.parse(String(data)) as Event;
      events.push(event);
      if (event.type === 'response.completed' || event.type === 'error') {
        ws.off('message', onMessage);
        resolve(events);
      }
    };
    ws.on('message', onMessage);
    ws.once('error', reject);
    ws.send(JSON.stringify({ type: 'response.create', model: 'sandbox/echo-1', input }));
  });
}

describe('WebSocket mode of /v1/responses, in process', () => {
  let gw: ObservedGateway;
  before(async () => { gw = await startObserved(); });
  after(async () => { await gw.close(); });

  it('opens no connection to the gateway besides the socket, and logs each turn as a POST /v1/responses', async () => {
    let connections = 0;
    const count = () => { connections++; };
    gw.gateway.server.on('connection', count);
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
    try {
      await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
      const first = await turn(ws, 'one');
      const second = await turn(ws, 'two');
      expect([first.at(-1)?.type, second.at(-1)?.type]).to.deep.equal(['response.completed', 'response.completed']);
      expect(connections, 'connections the gateway accepted').to.equal(1);
      const deadline = Date.now() + 5000;
      const turnLines = () => gw.lines.filter((l) => l.msg === 'request' && l.path === '/v1/responses');
      while (turnLines().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(turnLines()).to.have.length(2);
      for (const line of turnLines()) {
        expect(line).to.deep.include({ method: 'POST', route: 'responses.yaml', status: 200, model: 'sandbox/echo-1', key_id: 'env-1', streamed: true, client_aborted: false });
        expect(line.cost_usd).to.be.a('number');
      }
    } finally {
      gw.gateway.server.off('connection', count);
      ws.close();
    }
  });
});
