import { expect } from 'chai';
import { currentBucket } from '../../src/billing/budget-period.js';

describe('billing/budget-period', () => {
  describe('currentBucket', () => {
    const t = Date.UTC(2026, 10, 22, 13, 45, 30);

    it('names UTC calendar buckets and says when they reset', () => {
      expect(currentBucket('minute', t)).to.include({ id: 'minute:2026-11-22T13:45', resetsInSeconds: 30 });
      expect(currentBucket('hour', t)).to.include({ id: 'hour:2026-11-22T13', resetsInSeconds: 14 * 60 + 30 });
      expect(currentBucket('day', t).id).to.equal('day:2026-11-22');
      expect(currentBucket('month', t).id).to.equal('month:2026-11');
      expect(currentBucket('month', t).resetsInSeconds).to.equal((Date.UTC(2026, 11, 1) - t) / 1000);
    });

    it('moves to the next bucket at its edge, and back when the clock goes back (a bucket is reused only while the clock is inside it)', () => {
      const edge = Date.UTC(2026, 10, 22, 23, 59, 59, 999);
      expect(currentBucket('day', edge - 1000)).to.include({ id: 'day:2026-11-22', resetsInSeconds: 2 });
      expect(currentBucket('day', edge)).to.include({ id: 'day:2026-11-22', resetsInSeconds: 1 });
      expect(currentBucket('day', edge + 1)).to.include({ id: 'day:2026-11-23', resetsInSeconds: 86_400 });
      expect(currentBucket('day', edge - 1000).id).to.equal('day:2026-11-22');
      expect(currentBucket('minute', edge + 1)).to.include({ id: 'minute:2026-11-23T00:00', resetsInSeconds: 60, ttlSeconds: 60 + 86_400 });
      expect(currentBucket('month', edge + 1).id).to.equal('month:2026-11');
      expect(currentBucket('month', Date.UTC(2026, 11, 1)).id).to.equal('month:2026-12');
    });

    it('keeps total budgets forever', () => {
      expect(currentBucket('total', t)).to.deep.equal({ id: 'total', resetsInSeconds: 0, ttlSeconds: 0 });
    });
  });
});
