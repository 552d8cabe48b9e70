import { Worker } from 'node:worker_threads';

/**
 * The o200k_base token counter of the process, which runs in a worker thread. Loading the
 * encoding takes ~150 ms and ~55 MB, and counting a long prompt takes milliseconds (14 ms for
 * 210k characters): on the main thread either would stall every request in flight, and the
 * tables would make each of its full garbage collections longer. A count costs the main thread
 * one message each way (5-8 µs, no more than counting a short text in-process).
 * `startBpeWorker()` starts and loads it before the server listens when the config counts on
 * every request (keys with tpm or budgets); otherwise the first count starts it.
 * If the worker fails, a count falls back to the text's UTF-8 length, a strict upper bound
 * (every BPE token is at least one byte).
 */

let worker: { thread: Worker; loaded: Promise<void> } | undefined;
let nextId = 0;
const pending = new Map<number, { texts: string[]; resolve: (counts: number[]) => void }>();

let started: Promise<void> | undefined;

/**
 * Starts the worker (once) and resolves when its encoding is loaded and it has answered one
 * count, or when it failed. The worker's first count round trip takes 2-10 ms (its counting
 * code compiles then, and the second takes ~0.3 ms): spent here, before ready, not in the
 * latency of the first request.
 */
export function startBpeWorker(): Promise<void> {
  started ??= ensureWorker().loaded.then(async () => {
    if (worker) await countBpeBatch(['warm up']);
  });
  return started;
}

/** Token counts of several texts, in order. */
export function countBpeBatch(texts: string[]): Promise<number[]> {
  if (texts.every((t) => t.length === 0)) return Promise.resolve(texts.map(() => 0));
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, { texts, resolve });
    const { thread } = ensureWorker();
    thread.ref();
    thread.postMessage({ id, texts });
  });
}

/** Token count of one text. */
export async function countBpe(text: string): Promise<number> {
  if (text.length === 0) return 0;
  return (await countBpeBatch([text]))[0]!;
}

function ensureWorker(): { thread: Worker; loaded: Promise<void> } {
  if (worker) return worker;
  // From ../billing/ rather than ./: this module may run from the CLI bundle in dist/src/cli/
  // (scripts/build.js), and the worker is tsc's dist/src/billing/bpe-worker.js either way.
  const thread = new Worker(new URL('../billing/bpe-worker.js', import.meta.url));
  let markLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => { markLoaded = resolve; });
  thread.on('message', (msg: { id: number; counts: number[] } | { loaded: true }) => {
    if ('loaded' in msg) markLoaded();
    else {
      pending.get(msg.id)?.resolve(msg.counts);
      pending.delete(msg.id);
    }
    // Referenced while loading or while a count is awaited, so an idle worker never keeps the
    // process alive (a 'message' listener refs it, so it is not unref'd at creation).
    if (pending.size === 0) thread.unref();
  });
  const fail = () => {
    if (worker?.thread === thread) worker = undefined;
    markLoaded();
    for (const [id, p] of pending) {
      p.resolve(p.texts.map((t) => Buffer.byteLength(t, 'utf8')));
      pending.delete(id);
    }
  };
  thread.on('error', fail);
  thread.on('exit', fail);
  worker = { thread, loaded };
  return worker;
}
