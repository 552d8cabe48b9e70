import { expect } from 'chai';
import { createMemoryBreakerStore } from '../../src/routing/breaker-store.js';
import { observeBreakerStore, type ObservedBreakerState } from '../../src/routing/observed-breaker-store.js';

describe('routing/observed-breaker-store', () => {
  describe('#observeBreakerStore', () => {
    it('reports open, half_open and closed as an upstream breaker changes, and nothing on the happy path', async () => {
      let t = 0;
      const seen: Array<[string, string, ObservedBreakerState]> = [];
      const store = observeBreakerStore(createMemoryBreakerStore(() => t), (provider, upstream, state) => seen.push([provider, upstream, state]));
      const policy = { failures: 2, windowMs: 30_000, cooldownMs: 1000, whenAllOpen: 'try' as const };
      expect(await store.check('openai/primary', policy)).to.equal('closed');
      await store.record('openai/primary', true, policy);
      expect(seen, 'closed and healthy: nothing reported').to.deep.equal([]);
      await store.record('openai/primary', false, policy);
      await store.record('openai/primary', false, policy);
      expect(await store.check('openai/primary', policy)).to.equal('open');
      t = 1500;
      expect(await store.check('openai/primary', policy)).to.equal('probe');
      await store.record('openai/primary', true, policy);
      expect(seen).to.deep.equal([['openai', 'primary', 'open'], ['openai', 'primary', 'half_open'], ['openai', 'primary', 'closed']]);
    });
  });
});
