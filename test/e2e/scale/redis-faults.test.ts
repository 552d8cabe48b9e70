import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { toNanoUsd } from '../../../src/billing/usd.js';
import { startRedisChild, waitFor, type RedisChild } from '../../store/support/redis.js';
import { freePort } from '../../helpers/free-port.js';
import { streamCost } from '../budget/support/client.js';
import { spawnGateway, type GatewayProcess } from '../budget/support/process.js';
import { newKey, writeProject, type TestKey } from '../budget/support/project.js';

const LOAD_MS = 14_000;
const CLIENTS = 12;
const BUDGET_USD = 0.1;
const INSTANCES = 3;

interface Outcome { status: number; costNano?: number; stage?: string }

/** One chat call, streamed or not, with a prompt of random length; the billed cost when answered. */
async function call(url: string, key: string, stream: boolean): Promise<Outcome> {
  const words = 'the quick brown fox jumps over the lazy dog '.repeat(1 + Math.floor(Math.random() * 6));
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'sandbox/echo-1', max_tokens: 40, stream, messages: [{ role: 'user', content: words }] }),
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status };
    const cost = stream ? streamCost(text) : Number(res.headers.get('x-gateway-cost'));
    if (cost === undefined || !Number.isFinite(cost)) return { status: 599, stage: `no cost in ${stream ? 'stream' : 'body'}: ${text.slice(-200)}` };
    return { status: 200, costNano: toNanoUsd(cost) };
  } catch (e) {
    return { status: 0, stage: (e as Error).message };
  }
}

describe('e2e/scale: Redis stalled, killed and restarted under load from three instances (own redis-server)', function () {
  this.timeout(90_000);
  const key: TestKey = { key: newKey('fault'), name: 'fault', budget: { usd: BUDGET_USD, period: 'total' } };
  const owner = createHash('sha256').update(key.key).digest('hex');
  let redis: RedisChild;
  let aofDir = '';
  const gateways: GatewayProcess[] = [];

  before(async () => {
    aofDir = mkdtempSync(join(tmpdir(), 'gw-fault-redis-'));
    // Every acknowledged write is on disk before the reply, so a SIGKILL loses only unanswered ones.
    redis = await startRedisChild(undefined, ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', aofDir]);
    const store = { url: `${redis.url}?prefix=f:`, on_error: 'open' as const };
    const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
    const started = await Promise.all(ports.map((port) => spawnGateway(writeProject({ keys: [key], store, port }), port, key.key)));
    gateways.push(...started);
    // Outage shares divide by the live instances: wait until every one has seen the others.
    const probe = new Redis(redis.url);
    try {
      await waitFor(async () => (await probe.zcard('f:{fleet}:members')) === INSTANCES, 10_000, 'three heartbeats');
      await new Promise((r) => setTimeout(r, 3500)); // one more beat each, so each counts all three
    } finally {
      probe.disconnect();
    }
  });

  after(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await redis?.stop();
    rmSync(aofDir, { recursive: true, force: true });
  });

  it('never exceeds the budget by more than one request per instance, and the ledger equals the billed sum', async () => {
    const outcomes: Outcome[] = [];
    const faults: string[] = [];
    // Each instance serves the key once first (its tokenizer loaded, the key's remaining budget
    // seen): an instance that never saw an account has no share to admit against during an outage.
    for (const g of gateways) outcomes.push(await call(g.url, key.key, false));
    expect(outcomes.map((o) => o.status)).to.deep.equal([200, 200, 200]);
    const until = Date.now() + LOAD_MS;
    let n = 0;
    const client = async () => {
      while (Date.now() < until) outcomes.push(await call(gateways[n++ % INSTANCES]!.url, key.key, Math.random() < 0.5));
    };
    const chaos = async () => {
      await new Promise((r) => setTimeout(r, 800));
      while (Date.now() < until - 2500) {
        const pause = 150 + Math.floor(Math.random() * 1800);
        if (Math.random() < 0.5) {
          faults.push(`stall ${pause} ms`);
          redis.pause();
          await new Promise((r) => setTimeout(r, pause));
          redis.resume();
        } else {
          faults.push(`kill, restart after ${pause} ms`);
          await redis.stop();
          await new Promise((r) => setTimeout(r, pause));
          await redis.start();
        }
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 900)));
      }
    };
    await Promise.all([chaos(), ...Array.from({ length: CLIENTS }, client)]);
    if (!redis.running()) await redis.start();

    const unexpected = outcomes.filter((o) => o.status !== 200 && o.status !== 402);
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).to.deep.equal([]);
    const billed = outcomes.filter((o) => o.status === 200);
    expect(billed.length).to.be.greaterThan(50);
    expect(outcomes.filter((o) => o.status === 402).length, 'the budget ran out during the run').to.be.greaterThan(0);
    expect(faults.length).to.be.greaterThan(3);

    // Stopping the instances writes back whatever their journals still hold.
    await Promise.all(gateways.map((g) => g.stop()));
    const client2 = new Redis(redis.url);
    try {
      const spentNano = async () => Number((await client2.hget(`f:{${owner}}:spend:total`, 'spent')) ?? 0);
      const billedNano = billed.reduce((s, o) => s + o.costNano!, 0);
      await waitFor(async () => (await spentNano()) === billedNano, 5000, 'ledger equal to the billed sum').catch(() => undefined);
      const spent = await spentNano();
      const requests = Number(await client2.hget(`f:{${owner}}:spend:total`, 'requests'));
      const maxCost = Math.max(...billed.map((o) => o.costNano!));
      // Exact to the nano-dollar (so to the micro-dollar), and counted once per billed response.
      expect({ spent, requests }, `faults: ${faults.join(', ')}`).to.deep.equal({ spent: billedNano, requests: billed.length });
      expect(spent).to.be.at.most(toNanoUsd(BUDGET_USD) + INSTANCES * maxCost);
      console.log(`      ${billed.length} billed, ${outcomes.length - billed.length} refused (402), spent ${spent / 1e9} of ${BUDGET_USD} USD; faults: ${faults.join('; ')}`);
    } finally {
      client2.disconnect();
    }
  });
});
