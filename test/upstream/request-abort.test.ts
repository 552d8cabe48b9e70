import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callUpstream, TOTAL_DEADLINE } from '../../src/upstream/call-upstream.js';
import { abortSignalOf, RequestAbort } from '../../src/upstream/request-abort.js';

describe('upstream/request-abort', () => {
  describe('RequestAbort', () => {
    it('aborts once, keeping the first reason, and its AbortSignal follows before and after', () => {
      const abort = new RequestAbort();
      const early = abort.signal;
      let heard = 0;
      abort.on('abort', () => heard++);
      abort.abort(TOTAL_DEADLINE);
      abort.abort('later');
      expect([abort.aborted, abort.reason, heard]).to.deep.equal([true, TOTAL_DEADLINE, 1]);
      expect([early.aborted, early.reason]).to.deep.equal([true, TOTAL_DEADLINE]);
      expect(abortSignalOf(abort)).to.equal(early);
      expect(() => abort.throwIfAborted()).to.throw().that.equals(TOTAL_DEADLINE);
    });

    it('an AbortSignal made after the abort is already aborted; the default reason is an AbortError', () => {
      const abort = new RequestAbort();
      abort.abort();
      expect((abort.reason as DOMException).name).to.equal('AbortError');
      expect(abort.signal.aborted).to.equal(true);
    });
  });

  describe('with undici', () => {
    let server: Server;
    let url: string;
    before(async () => {
      server = createServer(() => undefined); // never answers
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));

    it('cancels an upstream call in flight (the client went away), which is classed as aborted', async () => {
      const abort = new RequestAbort();
      setTimeout(() => abort.abort(), 50);
      const out = await callUpstream({ url, method: 'GET', headers: {}, signal: abort, timeouts: { connectMs: 5000, firstByteMs: 10_000, idleMs: 10_000 } });
      expect(out.ok).to.equal(false);
      expect(!out.ok && out.failure).to.deep.equal({ kind: 'aborted' });
      expect(abort.listenerCount('abort')).to.equal(0);
    });

    it('classes the total deadline as a timeout, and leaves no listener after a call that finished', async () => {
      const abort = new RequestAbort();
      setTimeout(() => abort.abort(TOTAL_DEADLINE), 50);
      const out = await callUpstream({ url, method: 'GET', headers: {}, signal: abort, timeouts: { connectMs: 5000, firstByteMs: 10_000, idleMs: 10_000 } });
      expect(!out.ok && out.failure).to.deep.equal({ kind: 'timeout', phase: 'total' });
      expect(abort.listenerCount('abort')).to.equal(0);
    });
  });
});
