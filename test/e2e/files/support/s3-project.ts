import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import S3rver from 's3rver';
import { parseDocument } from 'yaml';

/** A real S3-protocol server (s3rver, pure JS) on loopback with one bucket, and a client of it. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  client: S3Client;
  /** Object keys under a prefix. */
  keys(prefix: string): Promise<string[]>;
  /** An object's bytes, or undefined when it does not exist. */
  bytes(key: string): Promise<Buffer | undefined>;
  close(): Promise<void>;
}

/** s3rver accepts any credentials that are set; these are its documented defaults. */
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** Starts s3rver on 127.0.0.1 (random port, temp folder) and creates the bucket. */
export async function startTestS3(bucket = 'gateway-files'): Promise<TestS3> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: S3_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    async keys(prefix) {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (out.Contents ?? []).map((o) => o.Key!);
    },
    async bytes(key) {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await got.Body!.transformToByteArray());
      } catch (e) {
        if ((e as { name?: string }).name === 'NoSuchKey') return undefined;
        throw e;
      }
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes a config project in a temp folder: the repo's gateway.yaml with `files` storage set
 * as given, its routes folder pointing at the repo's routes. Returns the config path.
 */
export async function writeFilesProject(files: Record<string, unknown>): Promise<{ configPath: string; dir: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-files-project-'));
  const doc = parseDocument(await readFile(resolve(process.cwd(), 'gateway.yaml'), 'utf8'));
  doc.set('routes', resolve(process.cwd(), 'routes'));
  for (const [key, value] of Object.entries(files)) doc.setIn(['files', key], value);
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(configPath, doc.toString());
  return { configPath, dir, close: () => rm(dir, { recursive: true, force: true }) };
}

/** A Redis store URL with a fresh key prefix, and a cleanup that deletes its keys. */
export function freshRedisStore(): { url: string; close(): Promise<void> } {
  const prefix = `gwtest-s3-${randomBytes(4).toString('hex')}:`;
  return {
    url: `redis://127.0.0.1:6379/?prefix=${prefix}`,
    async close() {
      const admin = new Redis('redis://127.0.0.1:6379');
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length > 0) await admin.del(...keys);
      await admin.quit();
    },
  };
}
