import { expect } from 'chai';
import * as promClient from 'prom-client';
import { Counter, Gauge, Registry, registerDefaultMetrics } from '../../src/observability/prom-core.js';

describe('observability/prom-core', () => {
  it("is prom-client's own Registry, Counter and Gauge (loaded without prom-client's index)", () => {
    expect(Registry).to.equal(promClient.Registry);
    expect(Counter).to.equal(promClient.Counter);
    expect(Gauge).to.equal(promClient.Gauge);
  });

  it("registers the metrics collectDefaultMetrics registers, with the same types and help", async () => {
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs });
    const ours = new Registry();
    registerDefaultMetrics(ours);
    const describe = async (r: promClient.Registry) => (await r.getMetricsAsJSON()).map((m) => `${m.name} ${m.type} ${m.help}`).sort();
    expect(await describe(ours)).to.deep.equal(await describe(theirs));
  });

  it('counts process CPU time: user + system = total, growing with work', async () => {
    const registry = new Registry();
    registerDefaultMetrics(registry);
    const read = async () => {
      const byName = new Map((await registry.getMetricsAsJSON()).map((m) => [m.name, m.values[0]?.value ?? 0]));
      return { user: byName.get('process_cpu_user_seconds_total')!, system: byName.get('process_cpu_system_seconds_total')!, total: byName.get('process_cpu_seconds_total')! };
    };
    const first = await read();
    let x = 0;
    const until = Date.now() + 60;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    expect(x).to.be.greaterThan(0);
    const second = await read();
    expect(second.total).to.be.greaterThan(first.total);
    expect(second.total).to.be.closeTo(second.user + second.system, 1e-9);
    const text = await registry.metrics();
    expect(text).to.match(/^process_cpu_seconds_total [0-9.e-]+$/m);
  });
});
