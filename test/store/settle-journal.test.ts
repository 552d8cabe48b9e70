import { expect } from 'chai';
import { ReplyError } from 'ioredis';
import { isPermanentError } from '../../src/store/redis-spend-ledger.js';
import { createSettleJournal, type PendingSettle } from '../../src/store/settle-journal.js';

const entry = (holdId: string): PendingSettle => ({ holdId, entries: [{ account: 'o:total', reservedNano: 0, ttlSeconds: 0 }], actualNano: 1, count: true });

describe('store/settle-journal', () => {
  describe('#flush', () => {
    it('writes back in order and stops at the first transient failure, keeping the rest', async () => {
      const applied: string[] = [];
      let down = true;
      const journal = createSettleJournal(async (e) => {
        if (down && e.holdId === 'b') throw new Error('Connection is closed.');
        applied.push(e.holdId);
      });
      ['a', 'b', 'c'].forEach((id) => journal.add(entry(id)));
      expect(await journal.flush()).to.equal(1);
      expect(journal.size()).to.equal(2);
      down = false;
      expect(await journal.flush()).to.equal(2);
      expect(applied).to.deep.equal(['a', 'b', 'c']);
      expect(journal.size()).to.equal(0);
    });

    it('drops an entry Redis refuses with an error, so it cannot block the others', async () => {
      const dropped: string[] = [];
      const journal = createSettleJournal(async (e) => {
        if (e.holdId === 'bad') throw new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value');
      }, undefined, isPermanentError, (e) => dropped.push(e.holdId));
      ['bad', 'good'].forEach((id) => journal.add(entry(id)));
      await journal.flush();
      expect(dropped).to.deep.equal(['bad']);
      expect(journal.size()).to.equal(0);
    });
  });

  describe('isPermanentError', () => {
    it('tells script and type errors from a Redis that is away, loading or moving slots', () => {
      expect(isPermanentError(new ReplyError('ERR Error running script'))).to.equal(true);
      expect(isPermanentError(new ReplyError('LOADING Redis is loading the dataset in memory'))).to.equal(false);
      expect(isPermanentError(new ReplyError('MOVED 3999 127.0.0.1:6381'))).to.equal(false);
      expect(isPermanentError(new Error('Command timed out'))).to.equal(false);
    });
  });
});
