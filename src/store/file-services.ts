import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { gatewayError } from '../errors/gateway-error.js';
import type { FileRecord } from '../providers/types.js';
import { createLocalBlobStore, type BlobStore } from './blob-store.js';
import { createMemoryFileIndex, type FileIndex } from './file-index.js';
import { createFileStore, type ManagedFileStore } from './file-store.js';
import type { RedisConnection } from './redis-connection.js';
import type { StoreGuard } from './redis-fallback.js';
import { createRedisFileIndex } from './redis-file-index.js';
import type { S3Credentials, S3Settings } from './s3-blob-store.js';

/** `files` in gateway.yaml, as far as storage goes. */
export interface FilesSettings {
  dir: string;
  store?: 'local' | 's3';
  s3?: S3Settings;
  ttl_days?: number;
  sweep_interval_seconds?: number;
}

/** The running file store and the sweep timer behind it. */
export interface FileServices { files: ManagedFileStore; close(): void }

/** Retention sweeps run at most this far apart unless `files.sweep_interval_seconds` says otherwise. */
const MAX_SWEEP_SECONDS = 600;

/** Default sweep interval: a 24th of the retention (bytes outlive their expiry by ~4 % at most), 1 s to 10 min. */
function defaultSweepSeconds(ttlSeconds: number): number {
  return Math.min(MAX_SWEEP_SECONDS, Math.max(1, Math.round(ttlSeconds / 24)));
}

/**
 * Builds the file store from config: bytes in `files.dir` (`store: local`, one instance) or in
 * an S3-compatible bucket (`store: s3`), records in Redis when the store is shared (else in
 * memory), and a retention sweep when `files.ttl_days` is set (each instance sweeps; deletes
 * are idempotent, so instances sweeping together do no harm).
 */
export function createFileServices(settings: FilesSettings, logger: Logger, options: { credentials?: S3Credentials; redis?: { conn: RedisConnection; guard: StoreGuard } } = {}): FileServices {
  const local = !(settings.store === 's3' && settings.s3);
  const dir = resolve(settings.dir);
  const blobs: BlobStore = local ? createLocalBlobStore(dir) : createLazyS3BlobStore(settings.s3!, options.credentials);
  const memory = createMemoryFileIndex();
  const index: FileIndex = options.redis ? createRedisFileIndex(options.redis.conn, options.redis.guard, memory) : memory;
  const ttlSeconds = (settings.ttl_days ?? 0) * 86_400;
  // Records shared through Redis with bytes on each instance's own disk: a record whose bytes
  // are elsewhere is the operator's setup (no shared files.dir), not the client's mistake.
  const missingBytes = local && options.redis ? (record: FileRecord) => {
    logger.error({ file_id: record.id, files_dir: dir }, 'file bytes not found on this instance: files.store local with a shared store needs one shared files.dir (or files.store s3)');
    return gatewayError('file_bytes_unavailable', `The bytes of file '${record.id}' are not available on this gateway instance; retry later or ask the operator.`);
  } : undefined;
  const files = createFileStore(blobs, index, { ttlSeconds, missingBytes });
  let timer: NodeJS.Timeout | undefined;
  if (ttlSeconds > 0) {
    const sweep = () => {
      files.sweep().then(
        (n) => { if (n > 0) logger.info({ files_deleted: n }, 'file retention sweep'); },
        (e: unknown) => logger.warn({ err: { message: (e as Error)?.message } }, 'file retention sweep failed'),
      );
    };
    sweep();
    timer = setInterval(sweep, (settings.sweep_interval_seconds ?? defaultSweepSeconds(ttlSeconds)) * 1000);
    timer.unref();
  }
  return {
    files,
    close() {
      if (timer) clearInterval(timer);
      blobs.close();
    },
  };
}

/**
 * The S3 blob store, with the AWS SDK loaded on first use: it is a large dependency (tens of
 * MB resident) that a gateway keeping files on its own disk never needs.
 */
function createLazyS3BlobStore(settings: S3Settings, credentials?: S3Credentials): BlobStore {
  let store: Promise<BlobStore> | undefined;
  let loaded: BlobStore | undefined;
  const get = (): Promise<BlobStore> => {
    store ??= import('./s3-blob-store.js').then((m) => (loaded = m.createS3BlobStore(settings, credentials)));
    return store;
  };
  return {
    write: async (key, content, contentType, signal) => (await get()).write(key, content, contentType, signal),
    read: async (key) => (await get()).read(key),
    open: async (key) => (await get()).open(key),
    delete: async (key) => (await get()).delete(key),
    writtenBefore: async (beforeMs, limit) => (await get()).writtenBefore(beforeMs, limit),
    close: () => loaded?.close(),
  };
}
