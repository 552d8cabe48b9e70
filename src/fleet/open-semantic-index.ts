import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/types.js';
import { createMemorySemanticIndex, type SemanticIndex } from '../store/semantic-index.js';

/** Prompts the in-memory index keeps per instance unless `cache.semantic.max_entries` says otherwise. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The semantic cache's index, when `cache.semantic.embedding_model` is set: in the ledger's
 * PostgreSQL with pgvector (`ledger.url`; shared by the fleet), else in this instance's memory.
 * When the database cannot hold it (no pgvector, migration 005 not applied, unreachable), a
 * warning says why and memory serves: the cache still works, per instance.
 */
export async function openSemanticIndex(config: GatewayConfig, logger: Logger): Promise<SemanticIndex | undefined> {
  const semantic = config.cache.semantic;
  if (!semantic?.embedding_model) return undefined;
  const memory = () => createMemorySemanticIndex(semantic.max_entries ?? DEFAULT_MAX_ENTRIES);
  const url = config.ledger.url;
  if (!url) return memory();
  // pg is loaded only when the index lives in PostgreSQL.
  const { openPgSemanticIndex } = await import('../store/semantic-index-pg.js');
  let lastWarn = 0;
  const opened = await openPgSemanticIndex(url, (message) => {
    // One line per 10 s at most while the database is down.
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn({ cache: 'semantic', err: { message } }, 'semantic cache database error (a miss)');
  });
  if ('index' in opened) {
    logger.info({ cache: 'semantic', index: 'pgvector' }, 'semantic cache index in PostgreSQL (pgvector)');
    return opened.index;
  }
  logger.warn({ cache: 'semantic', index: 'memory', reason: opened.unavailable }, `semantic cache: ${opened.unavailable}; the index is kept in this instance's memory`);
  return memory();
}
