import { GatewayError, errors } from '../errors/gateway-error.js';
import type { Runtime } from '../compile/runtime.js';
import { fromNanoUsd } from '../billing/usd.js';
import type { LedgerServices } from '../ledger/open-ledger.js';
import { recentRequests } from '../ledger/usage-report.js';
import type { SpendLedger } from '../store/spend-ledger.js';
import type { KeyChanges, KeyRecord, TeamChanges, TeamRecord } from './key-records.js';

/** What one admin call gets: who asks, what they sent, and the stores. */
export interface AdminInput {
  /** Name of the admin key (the audit's "who"). */
  actor: string;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  ledger: LedgerServices;
  spend: SpendLedger;
  runtime: Runtime;
}

/** An admin answer: status and JSON body. */
export interface AdminAnswer { status: number; body: unknown }

/** One admin operation (route files name it in `operation:`). */
export type AdminOperation = (input: AdminInput) => Promise<AdminAnswer>;

const ok = (body: unknown, status = 200): AdminAnswer => ({ status, body });

/** Total spend of an account in USD (the spend ledger counts it; the usage ledger reports it). */
async function spendOf(spend: SpendLedger, account: string): Promise<number> {
  return fromNanoUsd((await spend.read(account)).spentNano);
}

async function keyView(i: AdminInput, k: KeyRecord): Promise<Record<string, unknown>> {
  return { object: 'api_key', ...k, spend_usd: await spendOf(i.spend, `key:${k.id}:total`) };
}

async function teamView(i: AdminInput, t: TeamRecord): Promise<Record<string, unknown>> {
  // Team rpm/tpm columns are reserved for team-wide rate limits, not offered yet.
  const { rpm: _rpm, tpm: _tpm, ...shown } = t;
  return { object: 'team', ...shown, spend_usd: await spendOf(i.spend, `team:${t.id}:total`) };
}

function limitOf(query: AdminInput['query'], fallback: number, max: number): number {
  const raw = query.limit;
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw errors.invalidRequest(`'limit' must be an integer from 1 to ${max}; got '${String(raw)}'.`, 'invalid_parameter', { param: 'limit' });
  return n;
}

/**
 * Runs a change to a key or team and answers only once this instance has heard its change
 * notification (every instance is signalled at the same commit), so a revoke or rotate is in
 * force everywhere when the admin gets the answer.
 */
async function announced<T>(i: AdminInput, id: string, change: () => Promise<T>): Promise<T> {
  const heard = i.ledger.managedKeys.expectChange(id);
  const out = await change();
  i.ledger.managedKeys.invalidate();
  await heard;
  return out;
}

/** The id of the team the path names (by id or by name). */
async function teamIdOf(i: AdminInput): Promise<string> {
  const t = await i.ledger.keys.getTeam(i.params.id!);
  if (!t) throw notFound('team', i.params.id!);
  return t.id;
}

function notFound(what: 'key' | 'team', id: string): GatewayError {
  return errors.notFound(`No ${what} '${id}'.`, `${what}_not_found`);
}

/** Admin operations by name: the admin handler looks the route's `operation` up here. */
export const adminOperations: Readonly<Record<string, AdminOperation>> = {
  'admin.keys.create': async (i) => {
    const { record, secret } = await i.ledger.keys.createKey(i.actor, i.body as unknown as KeyChanges & { name: string });
    return ok({ ...(await keyView(i, record)), key: secret }, 201);
  },
  'admin.keys.list': async (i) => {
    const keys = await i.ledger.keys.listKeys({ team: typeof i.query.team === 'string' ? i.query.team : undefined, includeRevoked: i.query.include_revoked === 'true' });
    return ok({ object: 'list', data: await Promise.all(keys.map((k) => keyView(i, k))) });
  },
  'admin.keys.get': async (i) => {
    const k = await i.ledger.keys.getKey(i.params.id!);
    if (!k) throw notFound('key', i.params.id!);
    return ok(await keyView(i, k));
  },
  'admin.keys.update': async (i) => {
    const k = await announced(i, i.params.id!, () => i.ledger.keys.updateKey(i.actor, i.params.id!, i.body as KeyChanges));
    return ok(await keyView(i, k));
  },
  'admin.keys.delete': async (i) => {
    const k = await announced(i, i.params.id!, () => i.ledger.keys.revokeKey(i.actor, i.params.id!));
    return ok({ ...(await keyView(i, k)), revoked: true });
  },
  'admin.keys.rotate': async (i) => {
    const { record, secret } = await announced(i, i.params.id!, () => i.ledger.keys.rotateKey(i.actor, i.params.id!));
    return ok({ ...(await keyView(i, record)), key: secret });
  },
  'admin.teams.create': async (i) => ok(await teamView(i, await i.ledger.keys.createTeam(i.actor, i.body as unknown as TeamChanges & { name: string })), 201),
  'admin.teams.list': async (i) => ok({ object: 'list', data: await Promise.all((await i.ledger.keys.listTeams()).map((t) => teamView(i, t))) }),
  'admin.teams.get': async (i) => {
    const t = await i.ledger.keys.getTeam(i.params.id!);
    if (!t) throw notFound('team', i.params.id!);
    return ok(await teamView(i, t));
  },
  'admin.teams.update': async (i) => {
    const id = await teamIdOf(i);
    const t = await announced(i, id, () => i.ledger.keys.updateTeam(i.actor, id, i.body as TeamChanges));
    return ok(await teamView(i, t));
  },
  'admin.teams.delete': async (i) => {
    const id = await teamIdOf(i);
    const t = await announced(i, id, () => i.ledger.keys.deleteTeam(i.actor, id));
    return ok({ ...(await teamView(i, t)), deleted: true });
  },
  'admin.requests.list': async (i) => ok({ object: 'list', data: await recentRequests(i.ledger.pool, limitOf(i.query, 50, 500)) }),
  'admin.audit.list': async (i) => ok({ object: 'list', data: await i.ledger.keys.listAudit(limitOf(i.query, 100, 1000)) }),
  'admin.status': async (i) => {
    const providers = [...i.runtime.providers.values()].map((p) => ({
      name: p.name,
      type: p.spec.type,
      status: p.missing ? 'not_configured' : 'enabled',
      ...(p.missing ? { missing: p.missing } : {}),
      models: [...i.runtime.models.values()].filter((m) => m.provider === p).length,
    }));
    const models = [...i.runtime.models.values()].map((m) => ({
      id: m.spec.id,
      provider: m.provider.name,
      status: m.provider.missing ? 'not_configured' : 'available',
      hidden: m.spec.hidden === true,
    }));
    return ok({ providers, models, ledger: i.ledger.writer.stats() });
  },
};
