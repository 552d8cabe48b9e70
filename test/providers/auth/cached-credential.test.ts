import { expect } from 'chai';
import { bearerAuthorizer } from '../../../src/providers/auth/authorizers.js';
import { CachedCredential } from '../../../src/providers/auth/cached-credential.js';
import { isGatewayError } from '../../../src/errors/gateway-error.js';
import type { AttemptTrace } from '../../../src/upstream/call-upstream.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fetcher handing out `tok-1`, `tok-2`, ... living `lifeMs`, after `delayMs`; `fail` makes it reject. */
function tokenSource(lifeMs: number, delayMs = 0) {
  const state = { n: 0, fail: false };
  const fetch = async () => {
    await sleep(delayMs);
    if (state.fail) throw new Error('invalid_grant: the key was revoked');
    state.n++;
    return { value: `tok-${state.n}`, expiresAt: Date.now() + lifeMs };
  };
  return { state, fetch };
}

describe('providers/auth CachedCredential', () => {
  it('fetches once for concurrent first callers (single flight)', async () => {
    const src = tokenSource(60_000, 30);
    const cache = new CachedCredential(src.fetch);
    const got = await Promise.all(Array.from({ length: 10 }, () => cache.get()));
    expect(new Set(got)).to.deep.equal(new Set(['tok-1']));
    expect(cache.fetches).to.equal(1);
    cache.stop();
  });

  it('answers synchronously while the credential is fresh', async () => {
    const src = tokenSource(60_000);
    const cache = new CachedCredential(src.fetch);
    await cache.get();
    expect(cache.get()).to.equal('tok-1');
    cache.stop();
  });

  it('refreshes a used credential in the background before it expires, without making callers wait', async () => {
    const src = tokenSource(400);
    const cache = new CachedCredential(src.fetch);
    await cache.get();
    const seen = new Set<string>();
    const started = Date.now();
    while (Date.now() - started < 700) {
      const v = cache.get();
      expect(typeof v, 'never a promise once the first token arrived').to.equal('string');
      seen.add(v as string);
      await sleep(20);
    }
    expect(seen.size, 'a token of 400 ms over 700 ms was refreshed').to.be.at.least(2);
    expect(cache.fetches).to.be.at.most(4);
    cache.stop();
  });

  it('does not refresh a credential nobody used since it was fetched', async () => {
    const src = tokenSource(200);
    const cache = new CachedCredential(src.fetch);
    await cache.get();
    await sleep(400);
    expect(cache.fetches).to.equal(1);
    expect(await cache.get(), 'the next use fetches a fresh one').to.equal('tok-2');
    cache.stop();
  });

  it('keeps a valid credential when a background refresh fails, and rejects once none is valid', async () => {
    const src = tokenSource(300);
    const cache = new CachedCredential(src.fetch, { retryMs: 50 });
    await cache.get();
    src.state.fail = true;
    await sleep(240); // past the refresh point (225 ms), before the margin (270 ms)
    expect(cache.get()).to.equal('tok-1');
    await sleep(150);
    let error: unknown;
    try {
      await cache.get();
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.include('invalid_grant');
    expect(cache.lastError).to.be.an('error');
    src.state.fail = false;
    const fetches = cache.fetches;
    let held: unknown;
    await Promise.resolve(cache.get()).catch((e: unknown) => { held = e; });
    expect(String(held), 'right after a failure it waits before fetching again').to.include('invalid_grant');
    expect(cache.fetches).to.equal(fetches);
    await sleep(450);
    expect(await cache.get()).to.equal('tok-2');
    cache.stop();
  });

  it('as a bearer authorizer: sets Authorization, drops empty key headers, and fails as 502 upstream_auth_error counted in the trace', async () => {
    const src = tokenSource(60_000);
    const cache = new CachedCredential(src.fetch);
    const auth = bearerAuthorizer('vertex', 'credentials file $GOOGLE_APPLICATION_CREDENTIALS', cache);
    const headers: Record<string, string> = { 'x-goog-api-key': '', 'anthropic-version': '2023-06-01' };
    await auth.authorize({ method: 'POST', url: 'https://x/y', headers });
    expect(headers).to.deep.equal({ 'anthropic-version': '2023-06-01', authorization: 'Bearer tok-1' });
    cache.stop();

    const failing = tokenSource(60_000);
    failing.state.fail = true;
    const broken = bearerAuthorizer('vertex', 'credentials file $GOOGLE_APPLICATION_CREDENTIALS', new CachedCredential(failing.fetch));
    const trace: AttemptTrace = { calls: 0, total: { calls: 0 } };
    let error: unknown;
    try {
      await broken.authorize({ method: 'POST', url: 'https://x/y', headers: {} }, trace);
    } catch (e) {
      error = e;
    }
    expect(isGatewayError(error)).to.equal(true);
    const g = error as { status: number; code: string; message: string; details: Record<string, unknown> };
    expect([g.status, g.code]).to.deep.equal([502, 'upstream_auth_error']);
    expect(g.message).to.equal("Provider 'vertex' could not obtain credentials from credentials file $GOOGLE_APPLICATION_CREDENTIALS: invalid_grant: the key was revoked. This is a gateway configuration problem, not your API key.");
    expect(g.details).to.deep.equal({ provider: 'vertex', credential_source: 'credentials file $GOOGLE_APPLICATION_CREDENTIALS' });
    expect(trace.calls).to.equal(1);
    expect(trace.total!.calls).to.equal(1);
    expect(trace.failure).to.deep.equal({ kind: 'status', status: 502, headers: {} });
  });
});
