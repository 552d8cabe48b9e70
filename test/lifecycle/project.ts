import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The repo's own route files, used by every temp project. */
export const REPO_ROUTES = resolve(process.cwd(), 'routes');

/** A minimal gateway.yaml: a sandbox provider, an OpenAI-format provider and their models. */
export function baseConfig(opts: { port: number; graceS?: number; extra?: string; models?: string }): string {
  return `routes: ${REPO_ROUTES}
server:
  host: 127.0.0.1
  port: ${opts.port}
  log_level: info
  shutdown_grace_s: ${opts.graceS ?? 30}
auth:
  keys_env: GATEWAY_API_KEYS
${opts.extra ?? ''}
providers:
  sandbox:
    type: sandbox
  openai:
    type: openai-chat
    base_url: https://api.openai.com/v1
    api_key_env: OPENAI_API_KEY
    base_url_env: OPENAI_BASE_URL
models:
  - id: sandbox/echo-1
    provider: sandbox
    endpoints: [/v1/chat/completions, /v1/messages, /v1/responses]
    pricing: { prompt: "0.000001", completion: "0.000002" }
  - id: openai/slow-1
    provider: openai
    endpoints: [/v1/chat/completions, /v1/messages]
    pricing: { prompt: "0.000001", completion: "0.000002" }
${opts.models ?? ''}`;
}

/** Writes `files` (relative name -> text) into a new temp folder; returns the folder. */
export function writeProject(files: Record<string, string>): string {
  const dir = makeTempDir('gw-lifecycle-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A `gateway serve` child process. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Waits until the output contains `text`. */
  waitFor(text: string | RegExp, ms?: number): Promise<void>;
}

/**
 * Starts the real CLI (`node dist/src/cli/main.js serve`) on a temp project with a clean
 * environment, and (unless `waitReady` is false) waits until /readyz answers 200.
 */
export async function startServe(dir: string, port: number, env: Record<string, string> = {}, waitReady = true): Promise<ServeProcess> {
  const child = spawn(process.execPath, [resolve(process.cwd(), 'dist/src/cli/main.js'), 'serve', '--config', join(dir, 'gateway.yaml')], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', GATEWAY_API_KEYS: 'test-key-lifecycle', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (b: Buffer) => { out += b.toString('utf8'); for (const l of listeners) l(); };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => { for (const l of listeners) l(); r(code); }));
  const waitFor = (text: string | RegExp, ms = 10_000) => new Promise<void>((res, rej) => {
    const has = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
    if (has()) return res();
    const timer = setTimeout(() => { listeners.delete(check); rej(new Error(`timed out waiting for ${String(text)}; output:\n${out}`)); }, ms);
    const check = () => { if (has()) { clearTimeout(timer); listeners.delete(check); res(); } };
    listeners.add(check);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (waitReady) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${out}`);
    const status = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) throw new Error(`gateway never became ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url, output: () => out, exited, waitFor };
}
