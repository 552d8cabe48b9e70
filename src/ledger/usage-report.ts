import type { PgPool } from './pg-pool.js';

/** Dimensions a usage report groups by. */
export const usageGroups = ['key', 'team', 'model', 'provider', 'day'] as const;
/** One of usageGroups. */
export type UsageGroup = (typeof usageGroups)[number];

/** One line of a usage report. */
export interface UsageReportRow {
  group: string | null;
  /** UTC day (`YYYY-MM-DD`) when the report is split by day as well. */
  day?: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** A usage question: [from, to) in UTC, grouped by one dimension, optionally per day. */
export interface UsageQuery {
  from: Date;
  to: Date;
  by: UsageGroup;
  /** Only this key's rows (a client key asking about itself). */
  keyId?: string;
  /** Also split every group by UTC day (the dashboard's chart). */
  daily?: boolean;
}

const GROUP_SQL: Record<UsageGroup, string> = {
  key: 'key_id',
  team: 'team',
  model: 'model',
  provider: 'provider',
  day: "to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
};

/** Sums requests, tokens and cost per group over [from, to). Partition pruning keeps it to the months asked. */
export async function queryUsage(pool: PgPool, q: UsageQuery): Promise<UsageReportRow[]> {
  const params: unknown[] = [q.from.toISOString(), q.to.toISOString()];
  let where = 'started_at >= $1 AND started_at < $2';
  if (q.keyId !== undefined) {
    params.push(q.keyId);
    where += ` AND key_id = $${params.length}`;
  }
  const daily = q.daily && q.by !== 'day';
  const dayExpr = GROUP_SQL.day;
  const sql = `SELECT ${GROUP_SQL[q.by]} AS grp${daily ? `, ${dayExpr} AS day` : ''},
      count(*)::bigint AS requests, coalesce(sum(input_tokens), 0)::bigint AS input_tokens,
      coalesce(sum(output_tokens), 0)::bigint AS output_tokens, coalesce(sum(cost_usd), 0)::text AS cost_usd
    FROM usage_events WHERE ${where}
    GROUP BY 1${daily ? ', 2' : ''} ORDER BY ${daily ? '2, ' : ''}${q.by === 'day' ? '1' : 'sum(cost_usd) DESC, 1'}`;
  const { rows } = await pool.query<{ grp: string | null; day?: string; requests: string; input_tokens: string; output_tokens: string; cost_usd: string }>(sql, params);
  return rows.map((r) => ({
    group: r.grp,
    ...(daily ? { day: r.day } : {}),
    requests: Number(r.requests),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: Number(r.cost_usd),
  }));
}

/** The most recent ledger rows, newest first (the dashboard's "recent requests"). */
export async function recentRequests(pool: PgPool, limit: number): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query(
    `SELECT request_id, started_at, key_id, key_name, team, model, provider, operation, status, error_code,
        input_tokens::int AS input_tokens, output_tokens::int AS output_tokens, cost_usd::float8 AS cost_usd,
        latency_ms, ttft_ms, streamed
     FROM usage_events WHERE started_at > now() - interval '31 days' ORDER BY started_at DESC LIMIT $1`, [limit]);
  return rows as Record<string, unknown>[];
}

/**
 * Reads a report period bound: `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time. Undefined when
 * it is neither (the caller answers 400 naming the parameter).
 */
export function parseBound(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const s = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(s)) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Checks report parameters; returns the query or a message naming what is wrong. */
export function readUsageQuery(p: { from?: string; to?: string; by?: string }): UsageQuery | { error: string; param: string } {
  const now = new Date();
  const from = p.from === undefined ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) : parseBound(p.from);
  if (!from) return { error: `'from' must be a date (YYYY-MM-DD) or an RFC 3339 time; got '${p.from}'.`, param: 'from' };
  const to = p.to === undefined ? now : parseBound(p.to);
  if (!to) return { error: `'to' must be a date (YYYY-MM-DD) or an RFC 3339 time; got '${p.to}'.`, param: 'to' };
  if (to <= from) return { error: `'to' (${to.toISOString()}) must be after 'from' (${from.toISOString()}).`, param: 'to' };
  const by = (p.by ?? 'model') as UsageGroup;
  if (!usageGroups.includes(by)) return { error: `group by must be one of ${usageGroups.join(', ')}; got '${p.by}'.`, param: 'group_by' };
  return { from, to, by };
}
