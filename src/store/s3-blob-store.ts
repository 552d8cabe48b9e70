import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { assertSafeKey, isFileId, type BlobStore } from './blob-store.js';

/** `files.s3` in gateway.yaml: any S3-compatible service (AWS S3, R2, MinIO, Ceph ...). */
export interface S3Settings {
  bucket: string;
  /** Service URL; absent = AWS S3 for the region. */
  endpoint?: string;
  region?: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key` (MinIO, Ceph, most self-hosted). */
  force_path_style?: boolean;
  /** Prepended to every object key, e.g. `gateway/files/`. */
  prefix?: string;
  /** Environment variables holding the credentials (default AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY). */
  access_key_env?: string;
  secret_key_env?: string;
}

/** Credentials resolved from the environment at startup. */
export interface S3Credentials { accessKeyId: string; secretAccessKey: string }

/**
 * File bytes as objects in a bucket through @aws-sdk/client-s3. Uploads stream from the temp
 * file with a known Content-Length (one PutObject, nothing buffered); downloads stream the
 * object body. Checksums only where the operation requires them, since servers without
 * aws-chunked support would otherwise store the chunk framing inside the object.
 * Without credentials the SDK's default chain applies (instance roles, shared profiles).
 */
export function createS3BlobStore(settings: S3Settings, credentials?: S3Credentials): BlobStore {
  const client = new S3Client({
    region: settings.region ?? 'us-east-1',
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.force_path_style ?? false,
    ...(credentials ? { credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const keyOf = (key: string) => {
    assertSafeKey(key);
    return `${settings.prefix ?? ''}${key}`;
  };
  const get = async (key: string) => {
    try {
      return await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  };
  return {
    async write(key, content, contentType, signal) {
      const body = content instanceof Uint8Array ? content : createReadStream(content.path);
      const length = content instanceof Uint8Array ? content.byteLength : content.size;
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: body, ContentLength: length, ContentType: contentType }), signal ? { abortSignal: signal } : {});
    },
    async read(key) {
      const object = await get(key);
      return object?.Body ? await object.Body.transformToByteArray() : undefined;
    },
    async open(key) {
      const object = await get(key);
      // In Node the body is an http.IncomingMessage (a Readable).
      return object?.Body as Readable | undefined;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
    async writtenBefore(beforeMs, limit) {
      const prefix = settings.prefix ?? '';
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) {
          const key = o.Key?.slice(prefix.length) ?? '';
          // Only objects this gateway names (file ids) directly under the prefix are ever touched.
          if (isFileId(key) && o.LastModified && o.LastModified.getTime() < beforeMs) out.push(key);
          if (out.length >= limit) return out;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },
    close() {
      client.destroy();
    },
  };
}

function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}
