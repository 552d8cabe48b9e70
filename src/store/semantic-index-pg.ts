import pg from 'pg';
import { unitVector, type SemanticIndex } from './semantic-index.js';

/** After a database failure, lookups and writes skip the database this long (a miss, not a wait). */
const SUSPECT_MS = 5000;
/** Expired rows are deleted at most this often (by the write that finds the time has come). */
const SWEEP_EVERY_MS = 60_000;

/** The index, or why the database cannot hold it (the caller keeps the index in memory then). */
export type PgSemanticOpening = { readonly index: SemanticIndex } | { readonly unavailable: string };

/**
 * Opens the semantic index in the ledger's PostgreSQL (`ledger.url`), in the table that
 * migration 005 sets up with pgvector. The migration's setup function is called again here, so
 * a database where pgvector was installed after `gateway migrate` is set up at this start; when
 * it still cannot be (no pgvector, no right to create the extension, migration 005 not applied,
 * the database unreachable) the reason is returned. A lookup is an exact nearest-neighbour scan
 * of one partition (one model, scope and parameter set; its rows are found by the primary key),
 * so vectors of any dimension fit one table. A database fault is a miss, never a failed call:
 * queries time out after a second, and for a few seconds after a fault the database is not
 * asked at all.
 */
export async function openPgSemanticIndex(url: string, onError: (message: string) => void): Promise<PgSemanticOpening> {
  const pool = new pg.Pool({
    connectionString: url, max: 2, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 2000,
    statement_timeout: 1000, query_timeout: 1500, application_name: 'model-gateway-semantic-cache',
  });
  pool.on('error', (e) => onError(e.message));
  try {
    const found = await pool.query<{ ok: boolean }>("SELECT to_regprocedure('gateway_semantic_cache_setup()') IS NOT NULL AS ok");
    if (!found.rows[0]?.ok) {
      await pool.end();
      return { unavailable: 'migration 005 (semantic cache) is not applied: run `gateway migrate`' };
    }
    const setup = await pool.query<{ state: string }>('SELECT gateway_semantic_cache_setup() AS state');
    const state = setup.rows[0]?.state ?? 'no answer from gateway_semantic_cache_setup()';
    if (state !== 'ready') {
      await pool.end();
      return { unavailable: state };
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    return { unavailable: `the database did not answer (${(e as Error).message})` };
  }
  return { index: pgSemanticIndex(pool, onError) };
}

function pgSemanticIndex(pool: pg.Pool, onError: (message: string) => void): SemanticIndex {
  let suspectUntil = 0;
  let lastSweep = Date.now();
  const failed = (e: unknown) => {
    suspectUntil = Date.now() + SUSPECT_MS;
    onError((e as Error)?.message ?? String(e));
  };
  // Vectors go as real[] and are cast to pgvector's type (pgvector casts real[] to vector).
  const asParam = (unit: Float32Array) => Array.from(unit);
  return {
    kind: 'pgvector',
    async nearest(partition, vector) {
      const unit = unitVector(vector);
      if (!unit || Date.now() < suspectUntil) return undefined;
      try {
        const r = await pool.query<{ cache_key: string; distance: number }>(
          `SELECT cache_key, embedding <=> $2::real[]::vector AS distance FROM semantic_cache_vectors
            WHERE partition = $1 AND expires_at > now() ORDER BY distance LIMIT 1`,
          [partition, asParam(unit)],
        );
        const row = r.rows[0];
        if (!row) return undefined;
        // Cosine distance is 1 - similarity.
        return { key: row.cache_key, similarity: Math.min(1, 1 - Number(row.distance)) };
      } catch (e) {
        failed(e);
        return undefined;
      }
    },
    async add(partition, key, vector, ttlSeconds) {
      const unit = unitVector(vector);
      if (!unit || Date.now() < suspectUntil) return;
      try {
        await pool.query(
          `INSERT INTO semantic_cache_vectors (partition, cache_key, embedding, expires_at)
           VALUES ($1, $2, $3::real[]::vector, now() + make_interval(secs => $4))
           ON CONFLICT (partition, cache_key) DO UPDATE SET embedding = EXCLUDED.embedding, expires_at = EXCLUDED.expires_at`,
          [partition, key, asParam(unit), ttlSeconds],
        );
        if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
          lastSweep = Date.now();
          void pool.query('DELETE FROM semantic_cache_vectors WHERE expires_at <= now()').catch(failed);
        }
      } catch (e) {
        failed(e);
      }
    },
    async close() {
      await pool.end().catch(() => undefined);
    },
  };
}
