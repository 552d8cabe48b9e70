import { expect } from 'chai';
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage } from '../../src/server/startup-gc.js';

/** Bytes in use in V8's young generation. */
function youngGenerationUsed(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;
}

describe('startup garbage collection (src/server/startup-gc.ts)', () => {
  it('empties the young generation of garbage without leaving gc() exposed to this or any later context', () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    // ~1 MB of short-lived objects, dropped at once (a scavenge of V8's own may come first: try again).
    let before = 0;
    for (let i = 0; i < 5 && before < 1 << 20; i++) {
      let junk: Array<{ n: number; s: string }> | null = Array.from({ length: 20_000 }, (_, n) => ({ n, s: `item ${n}` }));
      junk = null;
      void junk;
      before = youngGenerationUsed();
    }
    expect(before).to.be.at.least(1 << 20);
    collectStartupGarbage();
    expect(youngGenerationUsed()).to.be.below(before / 2);
    expect(typeof (globalThis as { gc?: unknown }).gc === 'function').to.equal(hadGc);
    expect(runInNewContext('typeof gc')).to.equal('undefined');
  });
});
