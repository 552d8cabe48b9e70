import pg from 'pg';

/** A PostgreSQL pool for the ledger and the managed keys. */
export type PgPool = pg.Pool;

/**
 * Opens a pool on `url`. Idle-client errors (the server restarted, a backend was terminated)
 * are reported, never thrown: the pool replaces the client on the next query.
 */
export function createPgPool(url: string, onError: (message: string) => void, max = 4): PgPool {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5000, application_name: 'model-gateway' });
  pool.on('error', (e) => onError(e.message));
  return pool;
}

/** A connection URL with its password masked, for logs and error messages. */
export function maskUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
