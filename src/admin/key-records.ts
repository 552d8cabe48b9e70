import type { BudgetPeriod } from '../billing/budget-period.js';

/** A budget as the admin API and gateway.yaml spell it. */
export interface BudgetSpec { usd: number; period: BudgetPeriod }

/** A team as stored (admin API view). */
export interface TeamRecord {
  id: string;
  name: string;
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  budget: BudgetSpec | null;
  created_at: string;
  updated_at: string;
}

/** A managed key as stored, without its secret (admin API view). */
export interface KeyRecord {
  id: string;
  name: string;
  team_id: string | null;
  /** First and last characters of the secret, so an operator can tell keys apart. */
  key_hint: string;
  models: string[] | null;
  /** Provider name globs the key may reach (model calls and pass-through routes); null = all. */
  providers: string[] | null;
  rpm: number | null;
  tpm: number | null;
  budget: BudgetSpec | null;
  expires_at: string | null;
  revoked_at: string | null;
  rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A managed key with its team, as authentication needs it. */
export interface KeyWithTeam extends KeyRecord { team: TeamRecord | null }

/** Fields a team create or update may set (undefined = leave as is; null = clear). */
export interface TeamChanges {
  name?: string;
  models?: string[] | null;
  rpm?: number | null;
  tpm?: number | null;
  budget?: BudgetSpec | null;
}

/** Fields a key create or update may set: a team's, plus its team, provider globs and expiry. */
export interface KeyChanges extends TeamChanges {
  team?: string | null;
  providers?: string[] | null;
  expires_at?: string | null;
}

type Row = Record<string, unknown>;

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));
const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function budgetOf(row: Row, prefix = ''): BudgetSpec | null {
  const usd = row[`${prefix}budget_usd`];
  const period = row[`${prefix}budget_period`];
  return usd === null || usd === undefined ? null : { usd: Number(usd), period: String(period) as BudgetPeriod };
}

/** A `gateway_teams` row (columns optionally prefixed, as in a join) as a TeamRecord. */
export function teamFromRow(row: Row, prefix = ''): TeamRecord {
  return {
    id: String(row[`${prefix}id`]),
    name: String(row[`${prefix}name`]),
    models: (row[`${prefix}models`] as string[] | null) ?? null,
    rpm: int(row[`${prefix}rpm`]),
    tpm: int(row[`${prefix}tpm`]),
    budget: budgetOf(row, prefix),
    created_at: iso(row[`${prefix}created_at`])!,
    updated_at: iso(row[`${prefix}updated_at`])!,
  };
}

/** A `gateway_keys` row as a KeyRecord (never the hash). */
export function keyFromRow(row: Row): KeyRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    team_id: (row.team_id as string | null) ?? null,
    key_hint: String(row.key_hint),
    models: (row.models as string[] | null) ?? null,
    providers: (row.providers as string[] | null) ?? null,
    rpm: int(row.rpm),
    tpm: int(row.tpm),
    budget: budgetOf(row),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    rotated_at: iso(row.rotated_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
