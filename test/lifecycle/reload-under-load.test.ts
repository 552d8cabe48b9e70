import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { reloadOnHangup } from '../../src/cli/reload.js';
import { compile } from '../../src/compile/compile.js';
import { loadProject } from '../../src/config/load-project.js';
import { createLogger } from '../../src/observability/logger.js';
import { startGateway } from '../../src/server/start.js';
import { freePort } from '../helpers/free-port.js';
import { startKitUpstream, type KitUpstream } from '../kit/fake-upstream.js';
import { chatAnswer } from '../kit/scripted-answers.js';
import { baseConfig, startServe, writeProject, type ServeProcess } from './project.js';

const KEY = 'test-key-lifecycle';
const RELOADS = Number(process.env.RELOAD_STRESS_COUNT) || 100;
const CONNECTIONS = 16;

/** What one call ended as: complete, or why not. */
interface Outcome { model: string; stream: boolean; status: number; complete: boolean; detail?: string }

/**
 * One chat call on its own connection-less fetch; a stream is complete when it carries a
 * finish_reason, the usage chunk and `data: [DONE]`; a plain answer when it parses with a choice.
 */
async function call(url: string, model: string, stream: boolean): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), max_tokens: 16, messages: [{ role: 'user', content: 'hello there' }] }),
    });
    const text = await res.text();
    if (res.status !== 200) return { model, stream, status: res.status, complete: false, detail: text.slice(0, 300) };
    if (!stream) {
      const body = JSON.parse(text) as { choices?: Array<{ finish_reason?: string }> };
      const complete = Boolean(body.choices?.[0]?.finish_reason);
      return { model, stream, status: 200, complete, detail: complete ? undefined : text.slice(-300) };
    }
    const complete = /"finish_reason":"[a-z_]+"/.test(text) && /"usage":\{/.test(text) && text.trimEnd().endsWith('data: [DONE]');
    return { model, stream, status: 200, complete, detail: complete ? undefined : text.slice(-300) };
  } catch (e) {
    return { model, stream, status: 0, complete: false, detail: `${(e as Error).message} ${String((e as { cause?: unknown }).cause ?? '')}` };
  }
}

describe('reloadOnHangup', () => {
  it('runs one reload for SIGHUPs that arrive before it runs, and one more for a SIGHUP during or after it', async () => {
    const port = await freePort();
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port }) });
    const env = { GATEWAY_API_KEYS: KEY };
    const { runtime, diagnostics } = compile(loadProject(join(dir, 'gateway.yaml'), env), env);
    if (!runtime) throw new Error(diagnostics.map((d) => d.message).join('\n'));
    const gw = await startGateway(runtime, { host: '127.0.0.1', port: 0, logger: createLogger('silent') });
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write(chunk: Buffer, _enc, done) { lines.push(chunk.toString()); done(); } }));
    const stop = reloadOnHangup(join(dir, 'gateway.yaml'), gw, logger, () => undefined);
    const turns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
    try {
      for (let i = 0; i < 5; i++) process.emit('SIGHUP', 'SIGHUP');
      expect(lines, 'nothing runs inside the signal handler').to.deep.equal([]);
      await turns(3);
      expect(lines.filter((l) => l.includes('config reloaded'))).to.have.length(1);
      process.emit('SIGHUP', 'SIGHUP');
      await turns(3);
      expect(lines.filter((l) => l.includes('config reloaded'))).to.have.length(2);
    } finally {
      stop();
      await gw.close();
    }
  });
});

describe('config reload under streaming load (gateway serve + SIGHUP)', function () {
  this.timeout(180_000);
  let gw: ServeProcess | undefined;
  let upstream: KitUpstream | undefined;
  after(async () => {
    if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL');
    await upstream?.close();
  });

  it(`completes every request and stream in flight across ${RELOADS} reloads, good and broken alternating`, async () => {
    // A fake OpenAI deployment streaming with pauses, so streams span reloads on a real socket.
    upstream = await startKitUpstream('reload-openai', 'sk-reload', {
      dialects: ['openai-chat'],
      answer: chatAnswer(['one ', 'two ', 'three ', 'four'], { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }, 'slow-1'),
      defaultFault: { eventDelayMs: 15 },
    });
    const port = await freePort();
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port }) });
    const configPath = join(dir, 'gateway.yaml');
    const good = readFileSync(configPath, 'utf8');
    gw = await startServe(dir, port, { OPENAI_API_KEY: 'sk-reload', OPENAI_BASE_URL: `${upstream.url}/v1` });
    const served = gw;

    const broken = [
      '',
      'server: [unclosed\n',
      good.replace('  shutdown_grace_s: 30\n', '  shutdown_grace_s: 30\n  shutdown_grace: 3\n'),
    ];
    const outcomes: Outcome[] = [];
    let loading = true;
    const client = async (i: number) => {
      let n = i;
      while (loading) {
        const model = n % 2 === 0 ? 'sandbox/echo-1' : 'openai/slow-1';
        outcomes.push(await call(served.url, model, n % 4 < 2));
        n++;
      }
    };
    const clients = Array.from({ length: CONNECTIONS }, (_, i) => client(i));

    let refused = 0;
    let applied = 0;
    const logged = (text: string) => served.output().split(text).length - 1;
    try {
      for (let i = 0; i < RELOADS; i++) {
        const isGood = i % 2 === 0;
        // A good config differs each time (a new model), so every good reload swaps the runtime.
        writeFileSync(configPath, isGood ? `${good}  - id: sandbox/extra-${i}\n    provider: sandbox\n    endpoints: [/v1/chat/completions]\n` : broken[(i >> 1) % broken.length]!);
        const before = isGood ? logged('"msg":"config reloaded"') : logged('config reload refused');
        served.child.kill('SIGHUP');
        const deadline = Date.now() + 20_000;
        while ((isGood ? logged('"msg":"config reloaded"') : logged('config reload refused')) <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        if (isGood) applied++;
        else refused++;
        await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 40)));
      }
      // A storm: signals back to back, a broken config among them, the good one last.
      for (let i = 0; i < 20; i++) {
        writeFileSync(configPath, i === 19 ? good : broken[i % broken.length]!);
        served.child.kill('SIGHUP');
        await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      loading = false;
      await Promise.all(clients);
    }
    // Coalesced, the storm's signals ran as a few reloads, the last one reading the good config.
    const stormReloads = logged('"msg":"config reloaded"') + logged('config reload refused') - applied - refused;
    expect(stormReloads, 'reloads run for the 20 signals of the storm').to.be.within(1, 19);
    expect(served.output().trimEnd().split('\n').filter((l) => l.includes('config reload')).pop(), 'the last reload read the good config').to.include('"msg":"config reloaded"');
    expect(logged('config reload failed'), 'reloads that threw').to.equal(0);
    const incomplete = outcomes.filter((o) => !o.complete);
    expect(outcomes.filter((o) => o.stream).length, 'streams served').to.be.greaterThan(200);
    expect(incomplete.length, JSON.stringify(incomplete.slice(0, 5))).to.equal(0);
    expect(upstream.violations).to.deep.equal([]);
    expect(served.child.exitCode, 'the gateway is still running').to.equal(null);
    console.log(`      ${outcomes.length} calls (${outcomes.filter((o) => o.stream).length} streamed) across ${applied} applied and ${refused} refused reloads`);
  });
});
