import { expect } from 'chai';
import { RecentIds } from '../../src/store/recent-ids.js';

describe('store/recent-ids', () => {
  it('remembers at most its capacity, forgetting the oldest first', () => {
    const ids = new RecentIds(3, 60_000);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id, 1_000);
    expect(ids.size).to.equal(3);
    expect(['a', 'b', 'c', 'd'].map((id) => ids.has(id))).to.deep.equal([false, true, true, true]);
  });

  it('keeps the insertion order across many wraps of its ring', () => {
    const ids = new RecentIds(5, 60_000);
    for (let i = 0; i < 1_003; i++) ids.add(`id${i}`, 1_000);
    expect(ids.size).to.equal(5);
    for (let i = 0; i < 1_003; i++) expect(ids.has(`id${i}`), `id${i}`).to.equal(i >= 998);
  });

  it('forgets ids older than its maximum age when the next one is added', () => {
    const ids = new RecentIds(100, 1_000);
    ids.add('old', 0);
    ids.add('newer', 500);
    ids.add('late', 1_200);
    expect(ids.has('old')).to.equal(false);
    expect(ids.has('newer')).to.equal(true);
    expect(ids.has('late')).to.equal(true);
    expect(ids.size).to.equal(2);
    // Age and count together: everything but the last one is too old.
    ids.add('last', 5_000);
    expect(ids.size).to.equal(1);
    expect(ids.has('last')).to.equal(true);
  });
});
