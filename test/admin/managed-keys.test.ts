import { expect } from 'chai';
import { createManagedKeys } from '../../src/admin/managed-keys.js';
import type { KeyStore } from '../../src/admin/key-store.js';
import type { KeyWithTeam } from '../../src/admin/key-records.js';
import { POSTGRES_URL } from '../helpers/postgres.js';

/** A key store whose reads the test answers one by one. */
function heldStore() {
  const pending: Array<(v: KeyWithTeam | undefined) => void> = [];
  const store = { findByHash: () => new Promise<KeyWithTeam | undefined>((resolve) => pending.push(resolve)) } as unknown as KeyStore;
  return { store, pending };
}

describe('admin/managed-keys', () => {
  it('a read that started before a change neither answers lookups made after it nor refills the cache', async () => {
    const { store, pending } = heldStore();
    const keys = createManagedKeys(store, POSTGRES_URL, 60_000, () => undefined);
    try {
      await new Promise((r) => setTimeout(r, 300)); // LISTEN is up: the cache is in use
      const hash = Buffer.alloc(32, 7);
      const before = keys.lookup(hash); // read 1, answered after the change with the old record
      keys.invalidate(); // the change (as a notification would)
      const after = keys.lookup(hash); // read 2: a fresh read, not read 1 shared
      expect(pending).to.have.length(2);
      pending[1]!({ revoked_at: '2026-11-25T00:00:00Z' } as KeyWithTeam);
      expect((await after).status).to.equal('revoked');
      pending[0]!(undefined);
      expect((await before).status).to.equal('unknown');
      // The cache holds what read 2 found; the late read 1 did not overwrite it.
      expect((await keys.lookup(hash)).status).to.equal('revoked');
      expect(pending).to.have.length(2);
    } finally {
      await keys.close();
    }
  });
});
