import type { JobRecord, JobStore } from '../providers/types.js';
import type { RecordStore } from './file-store.js';

/** Jobs kept in a RecordStore (memory, or Redis when shared). */
export function createJobStore(records: RecordStore<JobRecord>): JobStore {
  return { save: (job) => records.put(job.id, job), get: (id) => records.get(id) };
}
