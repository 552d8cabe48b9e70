import { parentPort } from 'node:worker_threads';
import { BPE_MODULE, countWith, type BpeEncoding } from './bpe-count.js';

/**
 * Worker thread of the BPE counter: loads the encoding here, off the main thread (its load
 * takes ~150 ms and ~55 MB), says `{loaded: true}`, and answers `{id, texts}` with `{id, counts}`.
 * Counts asked for during the load wait in the port until the listener is attached.
 */
const encoding = (await import(BPE_MODULE)) as BpeEncoding;
parentPort?.on('message', (msg: { id: number; texts: string[] }) => {
  parentPort?.postMessage({ id: msg.id, counts: msg.texts.map((t) => countWith(encoding, t)) });
});
parentPort?.postMessage({ loaded: true });
