import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { ParameterizedContext } from 'koa';
import type { AppState } from '../../src/calls/state.js';
import { createLifecycle } from '../../src/server/lifecycle.js';

type Ctx = ParameterizedContext<AppState>;
const request = (): Ctx => ({ res: new EventEmitter() }) as unknown as Ctx;
const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => { done = true; });
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('server/lifecycle #inFlightEnded', () => {
  it('waits for the requests in flight when asked, not for later ones, with one listener each however often it is asked', async () => {
    const lifecycle = createLifecycle();
    const [a, b] = [request(), request()];
    const entries = [lifecycle.enter(a), lifecycle.enter(b)];
    const waits = Array.from({ length: 20 }, () => lifecycle.inFlightEnded());
    const later = request();
    lifecycle.enter(later);
    expect((a.res as unknown as EventEmitter).listenerCount('close')).to.equal(1);
    (a.res as unknown as EventEmitter).emit('close');
    lifecycle.leave(entries[0]!);
    expect(await settled(waits[0]!)).to.equal(false);
    (b.res as unknown as EventEmitter).emit('close');
    lifecycle.leave(entries[1]!);
    expect(await settled(Promise.all(waits))).to.equal(true);
    expect(await settled(lifecycle.inFlightEnded()), 'the later request is in flight now').to.equal(false);
  });
});
