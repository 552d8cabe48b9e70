import { expect } from 'chai';
import { createMemorySpendLedger } from '../../src/store/spend-ledger.js';

describe('store/spend-ledger', () => {
  describe('createMemorySpendLedger', () => {
    it('reserves only while used + amount stays within the limit', async () => {
      const ledger = createMemorySpendLedger();
      expect(await ledger.reserve('k:total', 60, 100, 0)).to.deep.equal({ ok: true, usedNano: 60 });
      expect(await ledger.reserve('k:total', 50, 100, 0)).to.deep.equal({ ok: false, usedNano: 60 });
      expect(await ledger.reserve('k:total', 40, 100, 0)).to.deep.equal({ ok: true, usedNano: 100 });
    });

    it('settles a reservation to the actual cost and counts the request', async () => {
      const ledger = createMemorySpendLedger();
      await ledger.reserve('k:total', 60, 100, 0);
      await ledger.settle([{ account: 'k:total', reservedNano: 60, ttlSeconds: 0 }], 25);
      expect(await ledger.read('k:total')).to.deep.equal({ usedNano: 25, spentNano: 25, requests: 1 });
    });

    it('admits exactly the calls a budget fits when 20 reserve at once', async () => {
      const ledger = createMemorySpendLedger();
      const results = await Promise.all(Array.from({ length: 20 }, () => ledger.reserve('k:day', 10, 50, 60)));
      expect(results.filter((r) => r.ok)).to.have.length(5);
    });

    it('forgets an account once its period expired', async () => {
      let now = 1_000_000;
      const ledger = createMemorySpendLedger(() => now);
      await ledger.reserve('k:minute', 10, 10, 60);
      now += 61_000;
      expect(await ledger.read('k:minute')).to.deep.equal({ usedNano: 0, spentNano: 0, requests: 0 });
      expect((await ledger.reserve('k:minute', 10, 10, 60)).ok).to.equal(true);
    });

    it('applies a settle once per hold id, also after 1,000 other settles', async () => {
      const ledger = createMemorySpendLedger();
      await ledger.settle([{ account: 'k:total', reservedNano: 0, ttlSeconds: 0 }], 10, 'hold-a');
      for (let i = 0; i < 999; i++) await ledger.settle([{ account: 'other:total', reservedNano: 0, ttlSeconds: 0 }], 1, `hold-${i}`);
      await ledger.settle([{ account: 'k:total', reservedNano: 0, ttlSeconds: 0 }], 10, 'hold-a');
      expect(await ledger.read('k:total')).to.deep.equal({ usedNano: 10, spentNano: 10, requests: 1 });
    });

    it('forgets a settled hold id after the hold TTL', async () => {
      let now = 1_000_000;
      const ledger = createMemorySpendLedger(() => now, 60);
      await ledger.settle([{ account: 'k:total', reservedNano: 0, ttlSeconds: 0 }], 10, 'hold-a');
      now += 61_000;
      await ledger.settle([{ account: 'k:total', reservedNano: 0, ttlSeconds: 0 }], 1, 'hold-b');
      // hold-a is no longer known: a reserve under its id takes a new hold.
      expect(await ledger.reserve('k:total', 5, 100, 0, 'hold-a')).to.deep.equal({ ok: true, usedNano: 16 });
    });
  });
});
