import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { toNanoUsd } from '../../../src/billing/usd.js';
import { encodeWav } from '../../../src/providers/sandbox/wav.js';
import { startRedisChild, waitFor, type RedisChild } from '../../store/support/redis.js';
import { freePort } from '../../helpers/free-port.js';
import { errorCode, post, streamCost } from '../budget/support/client.js';
import { spawnGateway, type GatewayProcess } from '../budget/support/process.js';
import { newKey, writeProject, type TestKey } from '../budget/support/project.js';
import { faultSchedule, inFaultWindow, type FaultWindow, type TimedCall } from './support/fault-run.js';

const LOAD_MS = 14_000;
const CLIENTS = 12;
const FRESH_CLIENTS = 3;
const FRESH_KEYS = 40;
const BUDGET_USD = 0.1;
const INSTANCES = 3;
/** Calls this long after Redis answers again must never meet `store_unavailable`. */
const GRACE_MS = 2500;
/** Records written on one instance during an outage show on another this soon after Redis returns. */
const VISIBLE_WITHIN_MS = 2000;

/** One chat call, streamed or not, with a prompt of random length; the billed cost when answered. */
async function call(url: string, key: string, stream: boolean): Promise<TimedCall> {
  const words = 'the quick brown fox jumps over the lazy dog '.repeat(1 + Math.floor(Math.random() * 6));
  const startedAt = Date.now();
  const done = (rest: Omit<TimedCall, 'key' | 'startedAt' | 'endedAt'>): TimedCall => ({ key, startedAt, endedAt: Date.now(), ...rest });
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'sandbox/echo-1', max_tokens: 40, stream, messages: [{ role: 'user', content: words }] }),
    });
    const text = await res.text();
    if (res.status !== 200) {
      let code: unknown;
      try { code = errorCode(JSON.parse(text) as Record<string, unknown>); } catch { /* not JSON */ }
      return done({ status: res.status, code: typeof code === 'string' ? code : undefined, detail: text.slice(0, 200) });
    }
    const cost = stream ? streamCost(text) : Number(res.headers.get('x-gateway-cost'));
    if (cost === undefined || !Number.isFinite(cost)) return done({ status: 599, detail: `no cost in ${stream ? 'stream' : 'body'}: ${text.slice(-200)}` });
    return done({ status: 200, costNano: toNanoUsd(cost) });
  } catch (e) {
    return done({ status: 0, detail: (e as Error).message });
  }
}

/** A file and a video job written on instance `a` while Redis was down, read back on `b`. */
interface OutageRecords { a: number; b: number; fileId: string; jobId: string; visibleAfterMs?: number; bytesOnB?: { status: number; code: unknown }; bytesOnA?: number }

describe('e2e/scale: Redis stalled, killed and restarted under load from three instances (own redis-server)', function () {
  this.timeout(120_000);
  const key: TestKey = { key: newKey('fault'), name: 'fault', budget: { usd: BUDGET_USD, period: 'total' } };
  // Keys first used at random points of the run (during faults, right after them): accounts
  // no instance saw before the outage.
  const fresh: TestKey[] = Array.from({ length: FRESH_KEYS }, (_, i) => ({ key: newKey(`fresh${i}`), name: `fresh${i}`, budget: { usd: 100, period: 'total' } }));
  const plain: TestKey = { key: newKey('plain'), name: 'plain' };
  const ownerOf = (k: string) => createHash('sha256').update(k).digest('hex');
  let redis: RedisChild;
  let aofDir = '';
  const gateways: GatewayProcess[] = [];

  before(async () => {
    aofDir = mkdtempSync(join(tmpdir(), 'gw-fault-redis-'));
    // Every acknowledged write is on disk before the reply, so a SIGKILL loses only unanswered ones.
    redis = await startRedisChild(undefined, ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', aofDir]);
    const store = { url: `${redis.url}?prefix=f:`, on_error: 'open' as const };
    const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
    // Each instance keeps file bytes in its own files.dir (files.store: local, no shared volume).
    const started = await Promise.all(ports.map((port) => spawnGateway(writeProject({ keys: [key, plain, ...fresh], store, port }), port, key.key)));
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

  it('refuses nothing with store_unavailable once Redis is back, shares outage records, and keeps budgets (at most one request over per instance)', async () => {
    const calls: TimedCall[] = [];
    const windows: FaultWindow[] = [];
    const records: OutageRecords[] = [];
    const checks: Array<Promise<void>> = [];
    // Each instance serves the budget key once first (its tokenizer loaded, the key's remaining
    // budget seen): an instance that never saw an account has no share to admit against during an outage.
    for (const g of gateways) calls.push(await call(g.url, key.key, false));
    expect(calls.map((o) => o.status)).to.deep.equal([200, 200, 200]);
    const start = Date.now();
    const until = start + LOAD_MS;
    let n = 0;
    const client = async () => {
      while (Date.now() < until) calls.push(await call(gateways[n++ % INSTANCES]!.url, key.key, Math.random() < 0.5));
    };
    const freshClient = async () => {
      while (Date.now() < until) {
        const k = fresh[Math.min(FRESH_KEYS - 1, Math.floor((Date.now() - start) / (LOAD_MS / FRESH_KEYS)))]!;
        calls.push(await call(gateways[Math.floor(Math.random() * INSTANCES)]!.url, k.key, Math.random() < 0.5));
      }
    };
    // While Redis is down: a file upload and a video job on one instance ...
    const whileDown = async () => {
      const a = Math.floor(Math.random() * INSTANCES);
      const wav = encodeWav(new Float32Array(1600), {});
      const upload = await post(`${gateways[a]!.url}/v1/files`, plain.key, { content_base64: wav.toString('base64'), filename: 'outage.wav', mime_type: 'audio/wav' });
      expect(upload.status, upload.text).to.equal(200);
      const job = await post(`${gateways[a]!.url}/v1/video/generations`, plain.key, { model: 'sandbox/video-1', prompt: 'waves', duration_seconds: 1, max_wait_seconds: 1 });
      expect(job.status, job.text).to.equal(200);
      records.push({ a, b: (a + 1 + Math.floor(Math.random() * (INSTANCES - 1))) % INSTANCES, fileId: String(upload.json.id), jobId: String(job.json.id) });
    };
    // ... read on another instance once Redis answers again.
    const onBack = (at: number) => {
      const r = records[records.length - 1]!;
      const get = (i: number, path: string) => fetch(`${gateways[i]!.url}${path}`, { headers: { authorization: `Bearer ${plain.key}` } });
      checks.push((async () => {
        await waitFor(async () => (await get(r.b, `/v1/files/${r.fileId}`)).status === 200 && (await get(r.b, `/v1/video/generations/${r.jobId}`)).status === 200, 10_000, `file and job of instance ${r.a} on instance ${r.b}`);
        r.visibleAfterMs = Date.now() - at;
        const onB = await get(r.b, `/v1/files/${r.fileId}/content`);
        r.bytesOnB = { status: onB.status, code: errorCode((await onB.json()) as Record<string, unknown>) };
        const onA = await get(r.a, `/v1/files/${r.fileId}/content`);
        r.bytesOnA = onA.status;
        await onA.arrayBuffer();
      })());
    };
    await Promise.all([faultSchedule(redis, until, windows, whileDown, onBack), ...Array.from({ length: CLIENTS }, client), ...Array.from({ length: FRESH_CLIENTS }, freshClient)]);
    if (!redis.running()) await redis.start();
    await Promise.all(checks);
    const faults = windows.map((w) => w.what).join(', ');

    // Outside the fault windows (+ GRACE_MS) every call is answered or refused for budget; inside
    // them only an account the instance never saw may be refused with 503 store_unavailable.
    const outside = calls.filter((c) => !inFaultWindow(c, windows, GRACE_MS));
    const badOutside = outside.filter((c) => c.status !== 200 && c.status !== 402);
    expect(badOutside.map((c) => ({ ...c, at: c.startedAt - start })), `faults: ${faults}`).to.deep.equal([]);
    const badInside = calls.filter((c) => c.status !== 200 && c.status !== 402 && !(c.status === 503 && c.code === 'store_unavailable'));
    expect(badInside.slice(0, 5), `faults: ${faults}`).to.deep.equal([]);
    expect(outside.length, 'calls outside the fault windows').to.be.greaterThan(50);
    expect(calls.filter((o) => o.key === key.key && o.status === 402).length, 'the budget ran out during the run').to.be.greaterThan(0);
    expect(windows.length).to.be.greaterThan(3);

    // Records written on one instance during an outage: on the others within 2 s; the bytes stay
    // on the instance that took the upload (no shared files.dir): 502 file_bytes_unavailable elsewhere.
    expect(records.length, `faults: ${faults}`).to.be.greaterThan(0);
    for (const r of records) {
      expect(r.visibleAfterMs, JSON.stringify(r)).to.be.at.most(VISIBLE_WITHIN_MS);
      expect(r.bytesOnB, JSON.stringify(r)).to.deep.equal({ status: 502, code: 'file_bytes_unavailable' });
      expect(r.bytesOnA, JSON.stringify(r)).to.equal(200);
    }

    // Stopping the instances writes back whatever their journals still hold.
    await Promise.all(gateways.map((g) => g.stop()));
    const client2 = new Redis(redis.url);
    try {
      const ledger = async (k: string) => {
        const h = await client2.hgetall(`f:{${ownerOf(k)}}:spend:total`);
        return { spent: Number(h.spent ?? 0), requests: Number(h.requests ?? 0) };
      };
      const billedOf = (k: string) => {
        const billed = calls.filter((o) => o.key === k && o.status === 200);
        return { spent: billed.reduce((s, o) => s + o.costNano!, 0), requests: billed.length };
      };
      await waitFor(async () => (await ledger(key.key)).spent === billedOf(key.key).spent, 5000, 'ledger equal to the billed sum').catch(() => undefined);
      // Exact to the nano-dollar (so to the micro-dollar), and counted once per billed response.
      for (const k of [key, ...fresh]) expect(await ledger(k.key), `${k.name}; faults: ${faults}`).to.deep.equal(billedOf(k.key));
      const billed = calls.filter((o) => o.key === key.key && o.status === 200);
      const maxCost = Math.max(...billed.map((o) => o.costNano!));
      expect((await ledger(key.key)).spent).to.be.at.most(toNanoUsd(BUDGET_USD) + INSTANCES * maxCost);
      const refused = calls.filter((c) => c.status === 503).length;
      console.log(`      ${calls.filter((c) => c.status === 200).length} billed, ${calls.filter((c) => c.status === 402).length} refused for budget, ${refused} store_unavailable inside fault windows; records visible after ${records.map((r) => r.visibleAfterMs).join(', ')} ms; faults: ${faults}`);
    } finally {
      client2.disconnect();
    }
  });
});
