import { expect } from 'chai';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { warmUpHttpClient } from '../../src/upstream/warm-up.js';

/** Counts of the process's active TCP handles (servers and sockets). */
function tcpHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;
}

describe('upstream warm-up (src/upstream/warm-up.ts)', () => {
  it('sends one request through an upstream agent to its own loopback server, and leaves nothing open', async () => {
    const answered: Array<{ path: string; status: number }> = [];
    const onHeaders = (message: unknown) => {
      const { request, response } = message as { request: { path: string }; response: { statusCode: number } };
      answered.push({ path: request.path, status: response.statusCode });
    };
    const before = tcpHandles();
    subscribe('undici:request:headers', onHeaders);
    try {
      await warmUpHttpClient();
    } finally {
      unsubscribe('undici:request:headers', onHeaders);
    }
    expect(answered).to.deep.equal([{ path: '/warm-up', status: 200 }]);
    // libuv drops closed handles from the list when their close completes, a turn or two later.
    for (let i = 0; i < 20 && tcpHandles() > before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tcpHandles()).to.be.at.most(before);
  });
});
