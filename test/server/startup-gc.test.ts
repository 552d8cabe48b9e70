import { expect } from 'chai';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage } from '../../src/server/startup-gc.js';

describe('startup garbage collection (src/server/startup-gc.ts)', () => {
  it('collects garbage without leaving gc() exposed to this or any later context', async () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    // A weakly held object that nothing else references is gone after a full collection.
    // A WeakRef keeps its target alive until the job that made it ends: collect in a later one.
    const ref = new WeakRef({ big: new Array(1000).fill(1) });
    await new Promise((resolve) => setImmediate(resolve));
    collectStartupGarbage();
    expect(ref.deref()).to.equal(undefined);
    expect(typeof (globalThis as { gc?: unknown }).gc === 'function').to.equal(hadGc);
    expect(runInNewContext('typeof gc')).to.equal('undefined');
  });
});
