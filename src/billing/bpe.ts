import { Worker } from 'node:worker_threads';
import { BPE_MODULE, countWith, type BpeEncoding } from './bpe-count.js';

/**
 * The o200k_base token counter of the process. Loading an encoding blocks for ~150 ms, so it is
 * never loaded on a request: `loadBpe()` loads it in-process before the server listens when the
 * config needs counts on every request (keys with tpm or budgets); otherwise the first count
 * starts a worker thread that loads it and counts there, and the event loop never stalls.
 * If the worker fails, a count falls back to the text's UTF-8 length, a strict upper bound
 * (every BPE token is at least one byte).
 */

let encoding: BpeEncoding | undefined;
let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { texts: string[]; resolve: (counts: number[]) => void }>();

/** Loads the encoding in this thread (call before listen(); later counts are synchronous). */
export async function loadBpe(): Promise<void> {
  encoding ??= (await import(BPE_MODULE)) as BpeEncoding;
}

/** Token counts of several texts, in order. */
export function countBpeBatch(texts: string[]): Promise<number[]> {
  if (encoding) return Promise.resolve(texts.map((t) => countWith(encoding!, t)));
  if (texts.every((t) => t.length === 0)) return Promise.resolve(texts.map(() => 0));
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, { texts, resolve });
    const w = startWorker();
    // Referenced only while a count is awaited, so an idle worker never keeps the process alive.
    w.ref();
    w.postMessage({ id, texts });
  });
}

/** Token count of one text. */
export async function countBpe(text: string): Promise<number> {
  if (text.length === 0) return 0;
  return (await countBpeBatch([text]))[0]!;
}

function startWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL('./bpe-worker.js', import.meta.url));
  w.unref();
  w.on('message', (msg: { id: number; counts: number[] }) => {
    pending.get(msg.id)?.resolve(msg.counts);
    pending.delete(msg.id);
    if (pending.size === 0) w.unref();
  });
  const fail = () => {
    if (worker === w) worker = undefined;
    for (const [id, p] of pending) {
      p.resolve(p.texts.map((t) => Buffer.byteLength(t, 'utf8')));
      pending.delete(id);
    }
  };
  w.on('error', fail);
  w.on('exit', fail);
  worker = w;
  return w;
}
