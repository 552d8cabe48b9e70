import type { ModelSpec, ProviderSpec } from '../../src/config/types.js';
import type { FileRecord, JobRecord, OperationCall, OperationServices } from '../../src/providers/types.js';

/** An OperationCall for mapping tests, with in-memory files and jobs and a fake fetcher. */
export function makeCall(body: Record<string, unknown>, options: {
  model?: Partial<ModelSpec>;
  provider?: ProviderSpec;
  apiKey?: string;
  baseUrl?: string;
  owner?: string;
  files?: Map<string, { record: FileRecord; bytes: Uint8Array }>;
  fetched?: Record<string, { bytes: Uint8Array; contentType: string }>;
} = {}): OperationCall {
  const files = options.files ?? new Map();
  const jobs = new Map<string, JobRecord>();
  const services: OperationServices = {
    files: {
      async put() { throw new Error('not in mapping tests'); },
      async get(id, owner) { const f = files.get(id); return f && f.record.owner === owner ? f.record : undefined; },
      async read(id, owner) { const f = files.get(id); return f && f.record.owner === owner ? f.bytes : undefined; },
    },
    jobs: { async save(job) { jobs.set(job.id, structuredClone(job)); }, async get(id) { return jobs.get(id); } },
    realtime: { sign: () => { throw new Error('no signer'); }, verify: () => undefined },
    async fetchMedia(url) {
      const hit = options.fetched?.[url];
      if (!hit) throw new Error(`unexpected fetch of ${url}`);
      return hit;
    },
  };
  return {
    operation: 'test',
    body,
    model: { id: 'acme/model-1', provider: 'acme', upstream: 'model-one', endpoints: [], ...options.model },
    providerName: 'acme',
    provider: options.provider ?? { type: 'http' },
    apiKey: options.apiKey ?? 'k-123',
    baseUrl: options.baseUrl ?? 'https://api.acme.test/v1',
    signal: new AbortController().signal,
    timeoutMs: 5000,
    owner: options.owner ?? 'owner-a',
    services,
  };
}

/** A file record owned by `owner`. */
export function fileRecord(id: string, owner: string, filename: string, mime: string, bytes: number): FileRecord {
  return { id, object: 'file', bytes, created_at: 0, filename, mime_type: mime, purpose: 'user_upload', provider: 'sandbox', owner };
}
