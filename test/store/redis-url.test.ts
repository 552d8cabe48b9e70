import { expect } from 'chai';
import { parseRedisUrl, storeKindOf } from '../../src/store/redis-url.js';

describe('store/redis-url', () => {
  describe('#parseRedisUrl', () => {
    it('reads a plain URL and its prefix', () => {
      const { target, prefix } = parseRedisUrl('redis://:pw@10.0.0.1:6380/2?prefix=app:');
      expect(prefix).to.equal('app:');
      expect(target.kind).to.equal('single');
      expect(target.kind === 'single' && target.url).to.equal('redis://:pw@10.0.0.1:6380/2');
    });

    it('turns TLS on for rediss://', () => {
      const { target } = parseRedisUrl('rediss://cache.internal:6380');
      expect(target.kind === 'single' && target.options.tls).to.deep.equal({});
    });

    it('reads a Sentinel list, master name, db and password', () => {
      const { target } = parseRedisUrl('redis+sentinel://:p%40ss@s1:26379,s2/mymaster/3');
      expect(target.kind).to.equal('sentinel');
      if (target.kind !== 'sentinel') return;
      expect(target.options.sentinels).to.deep.equal([{ host: 's1', port: 26379 }, { host: 's2', port: 26379 }]);
      expect(target.options).to.include({ name: 'mymaster', db: 3, password: 'p@ss' });
    });

    it('reads a cluster seed list', () => {
      const { target, prefix } = parseRedisUrl('redis-cluster://a:7000,b:7001');
      expect(prefix).to.equal('gw:');
      expect(target.kind === 'cluster' && target.nodes).to.deep.equal([{ host: 'a', port: 7000 }, { host: 'b', port: 7001 }]);
    });

    it('refuses a Sentinel URL without a master name and a prefix with a hash tag', () => {
      expect(() => parseRedisUrl('redis+sentinel://s1:26379')).to.throw(/master name/);
      expect(() => parseRedisUrl('redis://h?prefix={x}')).to.throw(/hash tags/);
    });
  });

  describe('#storeKindOf', () => {
    it('names each scheme', () => {
      expect(['memory', 'redis://h', 'rediss://h', 'redis+sentinel://h/m', 'redis-cluster://h:1'].map(storeKindOf)).to.deep.equal(['memory', 'redis', 'redis', 'redis-sentinel', 'redis-cluster']);
    });
  });
});
