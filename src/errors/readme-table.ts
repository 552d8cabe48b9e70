/**
 * The README's "Error codes" table, rendered from the catalog (src/errors/catalog.ts). The
 * README holds it between the markers below; test/errors/catalog.test.ts fails when the two
 * differ (run it with UPDATE_README=1 to rewrite the section).
 */
import { ERROR_CATALOG, type CatalogEntry } from './catalog.js';
import { toMessagesError } from './surface-types.js';

/** Markers around the generated table in README.md. */
export const TABLE_START = '<!-- error-codes:start (generated from src/errors/catalog.ts) -->';
export const TABLE_END = '<!-- error-codes:end -->';

/** The markdown table: one row per catalog entry, with how /v1/messages reads it. */
export function renderErrorTable(): string {
  const rows: readonly CatalogEntry[] = ERROR_CATALOG;
  const lines = [
    '| Status | `error.type` | `error.code` | On /v1/messages | When |',
    '|---|---|---|---|---|',
    ...rows.map((e) => {
      const m = toMessagesError(e.status, e.type, e.passthrough ? null : e.code);
      const status = e.passthrough ? '4xx' : String(e.status);
      const onMessages = e.passthrough ? 'same' : m.status === e.status && m.type === e.type ? 'same' : `${m.status} ${m.type}`;
      return `| ${status} | ${e.passthrough ? 'by status' : e.type} | \`${e.code}\` | ${onMessages} | ${e.meaning} |`;
    }),
  ];
  return lines.join('\n');
}

/** README text with the section between the markers replaced by the rendered table. */
export function replaceErrorTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} ... ${TABLE_END} section`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${renderErrorTable()}\n${readme.slice(end)}`;
}
