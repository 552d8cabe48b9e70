import type { CodeAt } from '../errors/catalog.js';
import { randomBytes } from 'node:crypto';
import { hashKey } from '../compile/keys.js';
import type { PgPool } from '../ledger/pg-pool.js';
import { keyFromRow, teamFromRow, type KeyChanges, type KeyRecord, type KeyWithTeam, type TeamChanges, type TeamRecord } from './key-records.js';

/** Channel on which every change to keys or teams is announced (all instances LISTEN). */
export const KEYS_CHANNEL = 'gateway_keys_changed';

/** Why a change was refused; the admin handler turns it into a 4xx. */
export class AdminConflict extends Error {
  constructor(readonly status: 404 | 409, readonly code: CodeAt<404> | CodeAt<409>, message: string) {
    super(message);
  }
}

/** Keys and teams in PostgreSQL. Every change writes an audit row and notifies all instances. */
export interface KeyStore {
  findByHash(hash: Buffer): Promise<KeyWithTeam | undefined>;
  findById(id: string): Promise<KeyWithTeam | undefined>;
  listKeys(filter: { team?: string; includeRevoked: boolean }): Promise<KeyRecord[]>;
  getKey(id: string): Promise<KeyRecord | undefined>;
  createKey(actor: string, c: KeyChanges & { name: string }): Promise<{ record: KeyRecord; secret: string }>;
  updateKey(actor: string, id: string, c: KeyChanges): Promise<KeyRecord>;
  revokeKey(actor: string, id: string): Promise<KeyRecord>;
  rotateKey(actor: string, id: string): Promise<{ record: KeyRecord; secret: string }>;
  listTeams(): Promise<TeamRecord[]>;
  getTeam(id: string): Promise<TeamRecord | undefined>;
  createTeam(actor: string, c: TeamChanges & { name: string }): Promise<TeamRecord>;
  updateTeam(actor: string, id: string, c: TeamChanges): Promise<TeamRecord>;
  deleteTeam(actor: string, id: string): Promise<TeamRecord>;
  listAudit(limit: number): Promise<Record<string, unknown>[]>;
}

/** A new secret: `gwk_` + 32 random bytes (base64url). */
export function newSecret(): string {
  return `gwk_${randomBytes(32).toString('base64url')}`;
}

function hintOf(secret: string): string {
  return `${secret.slice(0, 6)}...${secret.slice(-4)}`;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}`;
}

type Tx = { query: PgPool['query'] };
type Row = Record<string, unknown>;
type Rows = { rows: unknown[] };

/** The record of a result's first row (undefined when there is none). */
const first = <T>(r: Rows, fromRow: (row: Row) => T): T | undefined => (r.rows[0] ? fromRow(r.rows[0] as Row) : undefined);
/** The records of all rows of a result. */
const all = <T>(r: Rows, fromRow: (row: Row) => T): T[] => r.rows.map((row) => fromRow(row as Row));

// What the two audited tables differ in; everything else (lock, update, audit) is shared.
type Kind<T> = { table: string; type: string; fromRow: (row: Row) => T; missing: CodeAt<404> };
const KEYS: Kind<KeyRecord> = { table: 'gateway_keys', type: 'key', fromRow: keyFromRow, missing: 'key_not_found' };
const TEAMS: Kind<TeamRecord> = { table: 'gateway_teams', type: 'team', fromRow: teamFromRow, missing: 'team_not_found' };

const KEY_COLUMNS = { name: 'name', models: 'models', providers: 'providers', rpm: 'rpm', tpm: 'tpm', expires_at: 'expires_at' } as const;
const TEAM_COLUMNS = { name: 'name', models: 'models', rpm: 'rpm', tpm: 'tpm' } as const;

/** The KeyStore on a pool (tables from migration 002). */
export function createKeyStore(pool: PgPool): KeyStore {
  const inTx = async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  };
  const audit = (tx: Tx, actor: string, action: string, type: string, id: string, before: unknown, after: unknown) =>
    tx.query(`INSERT INTO gateway_audit (actor, action, target_type, target_id, before, after) VALUES ($1, $2, $3, $4, $5, $6);
      `, [actor, action, type, id, before === undefined ? null : JSON.stringify(before), after === undefined ? null : JSON.stringify(after)])
      .then(() => tx.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, id]));

  const resolveTeam = async (tx: Tx, team: string | null | undefined): Promise<string | null | undefined> => {
    if (team === undefined || team === null) return team;
    const r = await tx.query<{ id: string }>('SELECT id FROM gateway_teams WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1', [team]);
    if (!r.rows[0]) throw new AdminConflict(404, 'team_not_found', `No team '${team}' (give a team id or name; POST /admin/teams creates one).`);
    return r.rows[0].id;
  };

  /** SET clauses and values for the fields a change names. */
  const assignments = (c: KeyChanges | TeamChanges, columns: Record<string, string>, start: number) => {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, column] of Object.entries(columns)) {
      const v = (c as Record<string, unknown>)[field];
      if (v === undefined) continue;
      values.push(v);
      sets.push(`${column} = $${start + values.length}`);
    }
    if (c.budget !== undefined) {
      values.push(c.budget?.usd ?? null, c.budget?.period ?? null);
      sets.push(`budget_usd = $${start + values.length - 1}`, `budget_period = $${start + values.length}`);
    }
    return { sets, values };
  };

  /** The row `id` of a table, locked until the transaction ends (404 when missing). */
  const lock = async <T>(tx: Tx, kind: Kind<T>, id: string): Promise<T> => {
    const found = first(await tx.query(`SELECT * FROM ${kind.table} WHERE id = $1 FOR UPDATE`, [id]), kind.fromRow);
    if (!found) throw new AdminConflict(404, kind.missing, `No ${kind.type} '${id}'.`);
    return found;
  };
  /** Sets `sets` (plus updated_at) on locked row `id` and audits the change as `<type>.<action>`. */
  const update = async <T>(tx: Tx, actor: string, kind: Kind<T>, action: string, id: string, before: T, sets: string[], values: unknown[]): Promise<T> => {
    const r = await tx.query(`UPDATE ${kind.table} SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`, [id, ...values]);
    const after = kind.fromRow(r.rows[0] as Row);
    await audit(tx, actor, `${kind.type}.${action}`, kind.type, id, before, after);
    return after;
  };

  const findWithTeam = async (where: string, value: unknown): Promise<KeyWithTeam | undefined> => {
    const r = await pool.query(
      `SELECT k.*, t.id AS t_id, t.name AS t_name, t.models AS t_models, t.rpm AS t_rpm, t.tpm AS t_tpm,
          t.budget_usd AS t_budget_usd, t.budget_period AS t_budget_period, t.created_at AS t_created_at, t.updated_at AS t_updated_at
       FROM gateway_keys k LEFT JOIN gateway_teams t ON t.id = k.team_id WHERE ${where}`, [value]);
    const row = r.rows[0] as Row | undefined;
    if (!row) return undefined;
    return { ...keyFromRow(row), team: row.t_id ? teamFromRow(row, 't_') : null };
  };

  return {
    findByHash: (hash) => findWithTeam('k.key_hash = $1', hash),
    findById: (id) => findWithTeam('k.id = $1', id),
    async listKeys(f) {
      const params: unknown[] = [];
      const where: string[] = [];
      if (!f.includeRevoked) where.push('revoked_at IS NULL');
      if (f.team) {
        params.push(f.team);
        where.push(`team_id = (SELECT id FROM gateway_teams WHERE id = $1 OR name = $1 LIMIT 1)`);
      }
      return all(await pool.query(`SELECT * FROM gateway_keys ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`, params), keyFromRow);
    },
    async getKey(id) {
      return first(await pool.query('SELECT * FROM gateway_keys WHERE id = $1', [id]), keyFromRow);
    },
    createKey(actor, c) {
      return inTx(async (tx) => {
        const id = newId('key');
        const secret = newSecret();
        const teamId = await resolveTeam(tx, c.team);
        const r = await tx.query(
          `INSERT INTO gateway_keys (id, name, team_id, key_hash, key_hint, models, providers, rpm, tpm, budget_usd, budget_period, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
          [id, c.name, teamId ?? null, hashKey(secret), hintOf(secret), c.models ?? null, c.providers ?? null, c.rpm ?? null, c.tpm ?? null, c.budget?.usd ?? null, c.budget?.period ?? null, c.expires_at ?? null]);
        const record = keyFromRow(r.rows[0] as Row);
        await audit(tx, actor, 'key.create', 'key', id, undefined, record);
        return { record, secret };
      });
    },
    updateKey(actor, id, c) {
      return inTx(async (tx) => {
        const before = await lock(tx, KEYS, id);
        if (before.revoked_at) throw new AdminConflict(409, 'key_revoked', `Key '${id}' is revoked; create a new key instead.`);
        const { sets, values } = assignments(c, KEY_COLUMNS, 1);
        if (c.team !== undefined) {
          values.push(await resolveTeam(tx, c.team));
          sets.push(`team_id = $${1 + values.length}`);
        }
        return update(tx, actor, KEYS, 'update', id, before, sets, values);
      });
    },
    revokeKey(actor, id) {
      return inTx(async (tx) => {
        const before = await lock(tx, KEYS, id);
        if (before.revoked_at) return before;
        return update(tx, actor, KEYS, 'revoke', id, before, ['revoked_at = now()'], []);
      });
    },
    rotateKey(actor, id) {
      return inTx(async (tx) => {
        const before = await lock(tx, KEYS, id);
        if (before.revoked_at) throw new AdminConflict(409, 'key_revoked', `Key '${id}' is revoked; it cannot be rotated.`);
        const secret = newSecret();
        const record = await update(tx, actor, KEYS, 'rotate', id, before, ['key_hash = $2', 'key_hint = $3', 'rotated_at = now()'], [hashKey(secret), hintOf(secret)]);
        return { record, secret };
      });
    },
    async listTeams() {
      return all(await pool.query('SELECT * FROM gateway_teams ORDER BY created_at, id'), teamFromRow);
    },
    async getTeam(id) {
      return first(await pool.query('SELECT * FROM gateway_teams WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1', [id]), teamFromRow);
    },
    createTeam(actor, c) {
      return inTx(async (tx) => {
        const id = newId('team');
        const r = await tx.query(
          `INSERT INTO gateway_teams (id, name, models, rpm, tpm, budget_usd, budget_period) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (name) DO NOTHING RETURNING *`,
          [id, c.name, c.models ?? null, c.rpm ?? null, c.tpm ?? null, c.budget?.usd ?? null, c.budget?.period ?? null]);
        const record = first(r, teamFromRow);
        if (!record) throw new AdminConflict(409, 'team_exists', `A team named '${c.name}' already exists.`);
        await audit(tx, actor, 'team.create', 'team', id, undefined, record);
        return record;
      });
    },
    updateTeam(actor, id, c) {
      return inTx(async (tx) => {
        const before = await lock(tx, TEAMS, id);
        const { sets, values } = assignments(c, TEAM_COLUMNS, 1);
        return update(tx, actor, TEAMS, 'update', id, before, sets, values)
          .catch((e: { code?: string }) => { throw e.code === '23505' ? new AdminConflict(409, 'team_exists', `A team named '${c.name}' already exists.`) : e; });
      });
    },
    deleteTeam(actor, id) {
      return inTx(async (tx) => {
        const before = await lock(tx, TEAMS, id);
        const keys = await tx.query<{ n: string }>('SELECT count(*) AS n FROM gateway_keys WHERE team_id = $1 AND revoked_at IS NULL', [id]);
        if (Number(keys.rows[0]?.n ?? 0) > 0) throw new AdminConflict(409, 'team_has_keys', `Team '${id}' still has ${keys.rows[0]!.n} active key(s); revoke or move them first.`);
        await tx.query('UPDATE gateway_keys SET team_id = NULL WHERE team_id = $1', [id]);
        await tx.query('DELETE FROM gateway_teams WHERE id = $1', [id]);
        await audit(tx, actor, 'team.delete', 'team', id, before, undefined);
        return before;
      });
    },
    async listAudit(limit) {
      const r = await pool.query('SELECT id::text AS id, at, actor, action, target_type, target_id, before, after FROM gateway_audit ORDER BY gateway_audit.id DESC LIMIT $1', [limit]);
      return r.rows as Record<string, unknown>[];
    },
  };
}
