import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A gateway running as its own OS process (`gateway serve`). */
export interface GatewayProcess { url: string; stop(): Promise<void>; output(): string }

/**
 * Spawns `gateway serve --config <file>`: the compiled CLI when these tests run compiled
 * (dist/test), else the TypeScript sources through tsx. Resolves once the gateway answers an
 * authenticated GET /v1/models (authenticated, so the anonymous limit is not touched) and
 * GET /readyz with 200: what a balancer waits for before it routes to an instance (with
 * `store.on_error: closed`, /readyz stays 503 until the store answers).
 */
export async function spawnGateway(configPath: string, port: number, readyKey: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const compiled = fileURLToPath(import.meta.url).endsWith('.js') && existsSync(resolve(process.cwd(), 'dist/src/cli/main.js'));
  const args = compiled ? [resolve(process.cwd(), 'dist/src/cli/main.js')] : ['--import', 'tsx', resolve(process.cwd(), 'src/cli/main.ts')];
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [...args, 'serve', '--config', configPath], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr?.on('data', (c: Buffer) => { output += c.toString(); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${readyKey}` } });
      if (res.ok && (await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start on ${url}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => output,
    stop: () => new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }),
  };
}
