import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FileContent } from '../providers/types.js';

/**
 * Where file bytes live, by key (a file id): a local folder (one instance) or an S3-compatible
 * bucket (any number of instances). Records and listing live in the FileIndex, not here.
 */
export interface BlobStore {
  /** Stores the bytes under a key; a file on disk is moved or streamed, never read whole. `signal` aborts a transfer in flight. */
  write(key: string, content: FileContent, contentType: string, signal?: AbortSignal): Promise<void>;
  /** The whole bytes (for mappings that must send them upstream); undefined when missing. */
  read(key: string): Promise<Uint8Array | undefined>;
  /** A stream of the bytes (downloads); undefined when missing. */
  open(key: string): Promise<Readable | undefined>;
  /** Removes the bytes; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Keys of bytes last written before `beforeMs`, at most `limit` (retention of bytes whose record is gone). */
  writtenBefore(beforeMs: number, limit: number): Promise<string[]>;
  close(): void;
}

const FILE_ID = /^file-[0-9a-f]+$/;

/** Whether `id` has the shape of a file id the gateway makes (`file-<hex>`). */
export function isFileId(id: string): boolean {
  return FILE_ID.test(id);
}

/** Keys are file ids the gateway made; anything else never reaches the disk. */
export function assertSafeKey(key: string): void {
  if (!isFileId(key)) throw new Error(`bad blob key '${key}'`);
}

/** Bytes as files in one folder. A multipart upload is moved in with a rename (same disk). */
export function createLocalBlobStore(dir: string): BlobStore {
  let ready: Promise<unknown> | undefined;
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true }));
  const pathOf = (key: string) => {
    assertSafeKey(key);
    return join(dir, key);
  };
  return {
    async write(key, content) {
      await ensureDir();
      const target = pathOf(key);
      if (content instanceof Uint8Array) return writeFile(target, content);
      try {
        await rename(content.path, target);
      } catch (e) {
        // Another disk (files.tmp_dir elsewhere): copy instead.
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        await copyFile(content.path, target);
      }
    },
    async read(key) {
      try {
        return new Uint8Array(await readFile(pathOf(key)));
      } catch {
        return undefined;
      }
    },
    async open(key) {
      const path = pathOf(key);
      const stream = createReadStream(path);
      // Resolve only once the file is open, so a missing file is "undefined", not a broken stream.
      return new Promise<Readable | undefined>((resolve) => {
        stream.once('open', () => resolve(stream));
        stream.once('error', () => resolve(undefined));
      });
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async writtenBefore(beforeMs, limit) {
      const names = (await readdir(dir).catch(() => [] as string[])).filter(isFileId);
      const out: string[] = [];
      for (const name of names) {
        if (out.length >= limit) break;
        const info = await stat(join(dir, name)).catch(() => undefined);
        if (info && info.mtimeMs < beforeMs) out.push(name);
      }
      return out;
    },
    close() {},
  };
}
