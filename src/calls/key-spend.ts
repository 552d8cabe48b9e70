import { budgetExhausted, keyRateLimited, modelNotAllowed, providerNotAllowed } from '../billing/billing-errors.js';
import type { SpendHold } from '../billing/spend-hold.js';
import { currentBucket } from '../billing/budget-period.js';
import { fromNanoUsd, toNanoUsd, toNanoUsdCeil } from '../billing/usd.js';
import type { KeyEntry, ModelEntry } from '../compile/runtime.js';
import type { RateDecision, RateLimiter } from '../store/rate-limiter.js';
import type { SettleEntry, SpendLedger } from '../store/spend-ledger.js';
import { uniqueHexId } from './unique-id.js';

/** The shared services key policies count against. */
export interface KeyPolicyServices { limiter: RateLimiter; ledger: SpendLedger }

/** The window of rpm and tpm limits, in seconds. */
export const MINUTE = 60;
/** "No limit" for true-up hits that must always be counted. */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * A key's rpm check left to the call's budget reservation, so a model call with a budget is
 * admitted in one store round trip (see keyPolicy in server/steps/key-policy.ts).
 */
export interface DeferredRpm {
  readonly limit: number;
  /** Set once the reservation has decided (counted, refused, or a 402 that must not count). */
  decided: boolean;
  /** Writes the x-ratelimit headers of the decision. */
  report(d: RateDecision): void;
}

const deferredRpm = new WeakMap<object, DeferredRpm>();

/** The rpm check keyPolicy left to this request's reservation, if any. */
export function deferredRpmOf(gw: object): DeferredRpm | undefined {
  return deferredRpm.get(gw);
}

/** Leaves this request's rpm check to its reservation (the keyPolicy step, server/steps/key-policy.ts). */
export function deferRpm(gw: object, pending: DeferredRpm): void {
  deferredRpm.set(gw, pending);
}

/** 403 `model_not_allowed` unless the calling key's `models` globs match the body's model. */
export function assertModelAllowed(key: KeyEntry | undefined, model: unknown): void {
  if (key?.modelPatterns && typeof model === 'string' && !allowsModel(key.modelPatterns, model)) throw modelNotAllowed(key.spec.name, model);
}

/**
 * 403 `provider_not_allowed` unless the calling key's `providers` globs match the model's
 * provider (a router model is checked target by target, as its targets are chosen).
 */
export function assertProviderAllowed(key: KeyEntry | undefined, entry: ModelEntry): void {
  if (!entry.router && !allowsProvider(key, entry)) throw providerNotAllowed(key!.spec.name, entry.provider.name);
}

/** Whether a key's `providers` globs (compiled at startup) allow a model's provider; none = all. */
export function allowsProvider(key: KeyEntry | undefined, entry: ModelEntry): boolean {
  return !key?.providerPatterns || entry.router !== undefined || key.providerPatterns.some((re) => re.test(entry.provider.name));
}

/** Whether a key's compiled `models` globs (compile/keys.ts, at startup) match a model id; none = all. */
export function allowsModel(patterns: readonly RegExp[] | undefined, model: string): boolean {
  return !patterns || patterns.some((re) => re.test(model));
}

/**
 * Whether a key's calls are counted before they run: a token limit or a budget, its own or its
 * team's, needs the prompt's estimate.
 */
export function countsTokens(key: Pick<KeyEntry, 'spec' | 'team'>): boolean {
  return key.spec.tpm !== undefined || key.spec.budget !== undefined || key.team?.budget !== undefined;
}

/**
 * Opens a key's spend for one call. Spend is recorded for every key on `<owner>:total`; a key
 * with a budget also reserves and settles on the account of the current period, under one
 * hold id (so a retried settle is applied once, and an unsettled hold expires in the store).
 * A call refused with 402 gives back the request it counted on the key's rpm
 * (`rpmCounted`: the keyPolicy step counted one). Settlement failures never fail the call:
 * the answer has been delivered (`onError` hears about them).
 */
export function openKeySpend(key: KeyEntry | undefined, owner: string, services: KeyPolicyServices, onError?: (e: unknown) => void, rpm: boolean | DeferredRpm = true): SpendHold {
  const spec = key?.spec;
  const deferred = typeof rpm === 'object' ? rpm : undefined;
  const rpmCounted = rpm === true;
  const budget = spec?.budget;
  // Named when a reservation is first attempted: a settle that releases no hold needs no id
  // (this hold settles once, and a ledger that retries a settle names it itself). Remembering an
  // id per request in the memory ledger cost ~4-8 us per call (concurrent A/B, 5,000 requests x 6).
  let holdId: string | undefined;
  let reservation: SettleEntry | undefined;
  // A managed key's team budget holds across all the team's keys: reserved after the key's
  // own, and the key's reservation is given back when the team refuses.
  const team = key?.team;
  const teamBudget = team?.budget;
  let teamReservation: SettleEntry | undefined;
  // Named when the team is first reserved (most keys have no team).
  let teamHoldId: string | undefined;
  let tokensCharged = 0;
  let settled = false;
  const hold: SpendHold = {
    needsEstimate: !!key && countsTokens(key),
    async reserve(worstUsd, promptTokens, fit) {
      if (spec?.tpm !== undefined) {
        tokensCharged = Math.min(Math.max(0, Math.ceil(promptTokens)), spec.tpm);
        const d = await services.limiter.hit(`tpm:${owner}`, spec.tpm, MINUTE, tokensCharged);
        if (!d.allowed) {
          tokensCharged = 0;
          throw keyRateLimited('tpm', spec.tpm, d.retryAfterSeconds);
        }
      }
      if (!budget || !spec) return reserveTeam(toNanoUsdCeil(worstUsd));
      const bucket = currentBucket(budget.period);
      const account = `${owner}:${bucket.id}`;
      const limitNano = toNanoUsd(budget.usd);
      let amount = toNanoUsdCeil(worstUsd);
      const rate = deferred && !deferred.decided ? { key: `rpm:${owner}`, limit: deferred.limit, windowSeconds: MINUTE } : undefined;
      const reserveOnce = async () => {
        const result = await services.ledger.reserve(account, amount, limitNano, bucket.ttlSeconds, (holdId ??= uniqueHexId()), rate);
        if (deferred && result.rate) {
          deferred.report(result.rate);
          if (!result.rate.allowed) {
            deferred.decided = true;
            await releaseTokens();
            throw keyRateLimited('rpm', deferred.limit, result.rate.retryAfterSeconds);
          }
        }
        return result;
      };
      let r = await reserveOnce();
      if (!r.ok && fit) {
        const smaller = fit(fromNanoUsd(Math.max(0, limitNano - r.usedNano)));
        if (smaller !== undefined) {
          amount = toNanoUsdCeil(smaller);
          holdId = uniqueHexId(); // the refused id may be queued for release
          r = await reserveOnce();
        }
      }
      // A deferred rpm check is decided here: counted with the hold, or not at all on a 402.
      if (deferred) deferred.decided = true;
      if (!r.ok) {
        await releaseTokens();
        // A request refused for budget does not count against the key's rpm.
        if (rpmCounted && spec.rpm !== undefined) await services.limiter.hit(`rpm:${owner}`, UNLIMITED, MINUTE, -1).catch(() => undefined);
        throw budgetExhausted({
          key: spec.name, period: budget.period, budget_usd: budget.usd,
          used_usd: fromNanoUsd(r.usedNano), needed_usd: fromNanoUsd(amount), resets_in_seconds: bucket.resetsInSeconds,
        });
      }
      if (r.holdId) holdId = r.holdId;
      reservation = { account, reservedNano: amount, ttlSeconds: bucket.ttlSeconds, via: r.via };
      return reserveTeam(amount);
    },
    async settle(costUsd, tokens) {
      if (settled) return;
      settled = true;
      try {
        if (spec?.tpm !== undefined && tokens !== tokensCharged) {
          await services.limiter.hit(`tpm:${owner}`, UNLIMITED, MINUTE, Math.round(tokens - tokensCharged));
        }
        const entries: SettleEntry[] = reservation ? [reservation] : [];
        if (!reservation || !reservation.account.endsWith(':total')) entries.push({ account: `${owner}:total`, reservedNano: 0, ttlSeconds: 0 });
        if (owner) await services.ledger.settle(entries, toNanoUsd(costUsd), holdId);
        if (team) {
          // The team's accounts are another owner's keys (another Redis Cluster slot): settled on
          // their own, under the team hold's id.
          const teamEntries: SettleEntry[] = teamReservation ? [teamReservation] : [];
          if (!teamReservation?.account.endsWith(':total')) teamEntries.push({ account: `team:${team.id}:total`, reservedNano: 0, ttlSeconds: 0 });
          await services.ledger.settle(teamEntries, toNanoUsd(costUsd), teamHoldId);
        }
      } catch (e) {
        onError?.(e);
      }
    },
  };
  const reserveTeam = async (amount: number): Promise<number> => {
    if (!team || !teamBudget) return fromNanoUsd(reservation?.reservedNano ?? 0);
    const bucket = currentBucket(teamBudget.period);
    const account = `team:${team.id}:${bucket.id}`;
    const limitNano = toNanoUsd(teamBudget.usd);
    const r = await services.ledger.reserve(account, amount, limitNano, bucket.ttlSeconds, (teamHoldId ??= uniqueHexId()));
    if (!r.ok) {
      if (reservation) {
        // Give the key's hold back: settled at zero cost (idempotent under its hold id).
        await services.ledger.settle([reservation], 0, holdId).catch(() => undefined);
        reservation = undefined;
      }
      await releaseTokens();
      throw budgetExhausted({
        key: spec?.name ?? '', team: team.name, period: teamBudget.period, budget_usd: teamBudget.usd,
        used_usd: fromNanoUsd(r.usedNano), needed_usd: fromNanoUsd(amount), resets_in_seconds: bucket.resetsInSeconds,
      });
    }
    if (r.holdId) teamHoldId = r.holdId;
    teamReservation = { account, reservedNano: amount, ttlSeconds: bucket.ttlSeconds, via: r.via };
    return fromNanoUsd(amount);
  };
  const releaseTokens = async () => {
    if (tokensCharged > 0) await services.limiter.hit(`tpm:${owner}`, UNLIMITED, MINUTE, -tokensCharged).catch(() => undefined);
    tokensCharged = 0;
  };
  return hold;
}

/** The spend hold of the key that owns a realtime session (undefined when unknown). */
export function openRealtimeHold(services: KeyPolicyServices, keys: readonly KeyEntry[], owner: string): SpendHold | undefined {
  if (!owner) return undefined;
  const key = keys.find((k) => k.hash.toString('hex') === owner);
  return key ? openKeySpend(key, owner, services, undefined, false) : undefined;
}

/**
 * Decides a deferred rpm check on its own, for a call that reserves nothing (a response cache
 * hit counts against the key's rpm, not its tokens or budget): 429 when over.
 */
export async function decideDeferredRpm(gw: object, owner: string, services: KeyPolicyServices): Promise<void> {
  const pending = deferredRpm.get(gw);
  if (!pending || pending.decided) return;
  pending.decided = true;
  const d = await services.limiter.hit(`rpm:${owner}`, pending.limit, MINUTE);
  pending.report(d);
  if (!d.allowed) throw keyRateLimited('rpm', pending.limit, d.retryAfterSeconds);
}
