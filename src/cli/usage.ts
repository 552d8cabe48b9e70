import { queryUsage, readUsageQuery, type UsageReportRow } from '../ledger/usage-report.js';
import { runWithLedgerPool } from './ledger-config.js';

/** Options of `gateway usage`. */
export interface UsageOptions { from?: string; to?: string; by?: string; format?: string }

const COLUMNS = ['group', 'requests', 'input_tokens', 'output_tokens', 'cost_usd'] as const;

/**
 * `gateway usage --from 2026-11-01 --to 2026-12-01 --by key|team|model|provider|day
 * [--format table|csv|json]`: the usage ledger summed per group over [from, to) (UTC).
 */
export async function runUsage(configPath: string, o: UsageOptions): Promise<number> {
  const format = o.format === 'text' || o.format === undefined ? 'table' : o.format;
  if (!['table', 'csv', 'json'].includes(format)) {
    console.error(`--format must be table, csv or json; got '${o.format}'.`);
    return 2;
  }
  const q = readUsageQuery({ from: o.from, to: o.to, by: o.by });
  if ('error' in q) {
    console.error(q.error.replace(/^group by/, '--by'));
    return 2;
  }
  return runWithLedgerPool(configPath, 'usage', async (pool) => {
    const rows = await queryUsage(pool, q);
    console.log(renderUsage(rows, format as 'table' | 'csv' | 'json'));
    return 0;
  });
}

/** A report as an aligned table (with a total line), RFC 4180 CSV or a JSON array. */
export function renderUsage(rows: readonly UsageReportRow[], format: 'table' | 'csv' | 'json'): string {
  if (format === 'json') return JSON.stringify(rows.map((r) => ({ group: r.group, requests: r.requests, input_tokens: r.input_tokens, output_tokens: r.output_tokens, cost_usd: r.cost_usd })), null, 2);
  const cells = rows.map((r) => [r.group ?? '', String(r.requests), String(r.input_tokens), String(r.output_tokens), r.cost_usd.toFixed(6)]);
  if (format === 'csv') {
    const quote = (c: string) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
    return [COLUMNS.join(','), ...cells.map((row) => row.map(quote).join(','))].join('\r\n');
  }
  const sum = (f: (r: UsageReportRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  const total = ['TOTAL', String(sum((r) => r.requests)), String(sum((r) => r.input_tokens)), String(sum((r) => r.output_tokens)), sum((r) => r.cost_usd).toFixed(6)];
  const head = COLUMNS.map((c) => c.toUpperCase());
  const all = [head, ...cells, total];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...cells.map(line), widths.map((w) => '-'.repeat(w)).join('  '), line(total)].join('\n');
}
