/**
 * Peak memory of a gateway process while files stream through it: `node dist/bench/files-memory.js`.
 * Starts s3rver (a real S3-protocol server) here, a gateway child process with `files.store: s3`
 * (then `local`), uploads N files of SIZE MiB as multipart and downloads each back, and reports
 * the child's peak RSS (VmHWM) against its RSS after start-up. Buffering whole files would add
 * about N x SIZE MiB; streaming keeps the growth near the stream buffers.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshRedisStore, S3_CREDENTIALS, startTestS3, writeFilesProject } from '../test/e2e/files/support/s3-project.js';

const SIZE_MIB = Number(process.env.SIZE_MIB ?? 24);
const COUNT = Number(process.env.COUNT ?? 4);
const KEY = 'bench-key-0123456789';

async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(/\d+/.exec(status.split('\n').find((l) => l.startsWith(name)) ?? '0')![0]);
  return { rss: kb('VmRSS:') / 1024, peak: kb('VmHWM:') / 1024 };
}

async function measure(store: 'local' | 's3'): Promise<string> {
  const s3 = await startTestS3();
  const redis = freshRedisStore();
  const project = await writeFilesProject({
    store, max_bytes: (SIZE_MIB + 1) * 1024 * 1024,
    ...(store === 's3' ? { s3: { bucket: s3.bucket, endpoint: s3.endpoint, force_path_style: true } } : {}),
  });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [join(process.cwd(), 'dist/src/cli/main.js'), 'serve', '--config', project.configPath], {
    env: { ...process.env, ...S3_CREDENTIALS, PORT: String(port), GATEWAY_API_KEYS: KEY, GATEWAY_FILES_DIR: join(project.dir, 'files'), LOG_LEVEL: 'warn', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 100; i += 1) {
      if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const base = await memoryOf(child.pid!);
    const bytes = randomBytes(SIZE_MIB * 1024 * 1024);
    for (let i = 0; i < COUNT; i += 1) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), `f${i}.bin`);
      const up = await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: form });
      const id = ((await up.json()) as { id: string }).id;
      const down = Buffer.from(await (await fetch(`${url}/v1/files/${id}/content`, { headers: { authorization: `Bearer ${KEY}` } })).arrayBuffer());
      if (!down.equals(bytes)) throw new Error('bytes differ');
    }
    const end = await memoryOf(child.pid!);
    return `${store.padEnd(5)}  ${COUNT} x ${SIZE_MIB} MiB up+down: RSS after start ${base.rss.toFixed(0)} MiB, peak ${end.peak.toFixed(0)} MiB (+${(end.peak - base.rss).toFixed(0)} MiB)`;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await s3.close();
    await redis.close();
    await project.close();
  }
}

for (const store of ['s3', 'local'] as const) console.log(await measure(store));
