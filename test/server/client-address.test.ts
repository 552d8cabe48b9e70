import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import type { GatewayConfig } from '../../src/config/types.js';
import { createClientAddressRule } from '../../src/compile/client-address.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { awayFromMinuteEdge } from '../e2e/budget/support/client.js';
import { writeProject } from '../e2e/budget/support/project.js';

const server = (extra: Partial<GatewayConfig['server']>): GatewayConfig['server'] => ({ host: '127.0.0.1', port: 0, upstream_timeout_ms: 1000, log_level: 'silent', trust_proxy: false, shutdown_grace_s: 30, ...extra });

describe('server/client-address', () => {
  describe('#createClientAddressRule', () => {
    const cases: Array<{ name: string; cfg: Partial<GatewayConfig['server']>; peer: string; xff?: string; want: string }> = [
      { name: 'ignores X-Forwarded-For without trusted proxies', cfg: {}, peer: '10.0.0.5', xff: '1.2.3.4', want: '10.0.0.5' },
      { name: 'takes the right-most untrusted address (CIDR list)', cfg: { trusted_proxies: ['10.0.0.0/8'] }, peer: '10.0.0.5', xff: '6.6.6.6, 203.0.113.7, 10.1.2.3', want: '203.0.113.7' },
      { name: 'never trusts what a client forged on the left', cfg: { trusted_proxies: ['10.0.0.0/8'] }, peer: '10.0.0.5', xff: '10.9.9.9, 198.51.100.1', want: '198.51.100.1' },
      { name: 'uses the peer when it is not a trusted proxy', cfg: { trusted_proxies: ['10.0.0.0/8'] }, peer: '192.0.2.1', xff: '203.0.113.7', want: '192.0.2.1' },
      { name: 'counts hops from the right (1 = what the proxy saw)', cfg: { trusted_proxies: 1 }, peer: '10.0.0.5', xff: '6.6.6.6, 203.0.113.7', want: '203.0.113.7' },
      { name: 'counts two hops', cfg: { trusted_proxies: 2 }, peer: '10.0.0.5', xff: '6.6.6.6, 203.0.113.7, 10.0.0.9', want: '203.0.113.7' },
      { name: 'stops at the left end when hops exceed the chain', cfg: { trusted_proxies: 3 }, peer: '10.0.0.5', xff: '203.0.113.7', want: '203.0.113.7' },
      { name: 'reads trust_proxy: true as one hop', cfg: { trust_proxy: true }, peer: '10.0.0.5', xff: '6.6.6.6, 203.0.113.7', want: '203.0.113.7' },
      { name: 'matches IPv6 CIDRs and IPv4-mapped peers', cfg: { trusted_proxies: ['fd00::/8', '127.0.0.1'] }, peer: '::ffff:127.0.0.1', xff: '2001:db8::1, fd00::2', want: '2001:db8::1' },
    ];
    for (const c of cases) {
      it(c.name, () => {
        expect(createClientAddressRule(server(c.cfg))(c.peer, c.xff)).to.equal(c.want);
      });
    }
  });

  describe('anonymous discovery limit over HTTP', () => {
    const gateways: TestGateway[] = [];
    const boot = async (trusted?: string[]) => {
      const file = writeProject({ discoveryRequests: 2 });
      const doc = parse(readFileSync(file, 'utf8')) as { server: Record<string, unknown> };
      if (trusted) doc.server.trusted_proxies = trusted;
      writeFileSync(file, stringify(doc));
      const gw = await startGateway({ configPath: file });
      gateways.push(gw);
      return gw;
    };
    after(async () => { await Promise.all(gateways.map((g) => g.close())); });
    const models = (gw: TestGateway, xff: string) => fetch(`${gw.url}/v1/models`, { headers: { 'x-forwarded-for': xff } }).then((r) => r.status);

    it('limits per right-most untrusted address, whatever a client forges on the left', async () => {
      await awayFromMinuteEdge();
      const gw = await boot(['127.0.0.0/8']);
      // One client behind the proxy, varying the forged left-most address each time.
      const one = [await models(gw, '1.1.1.1, 203.0.113.7'), await models(gw, '2.2.2.2, 203.0.113.7'), await models(gw, '3.3.3.3, 203.0.113.7')];
      expect(one).to.deep.equal([200, 200, 429]);
      // Another client has its own window.
      expect(await models(gw, '203.0.113.8')).to.equal(200);
    });

    it('ignores X-Forwarded-For when no proxy is trusted', async () => {
      await awayFromMinuteEdge();
      const gw = await boot();
      const statuses = [await models(gw, '203.0.113.1'), await models(gw, '203.0.113.2'), await models(gw, '203.0.113.3')];
      expect(statuses).to.deep.equal([200, 200, 429]);
    });
  });
});
