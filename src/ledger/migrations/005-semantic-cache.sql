-- Semantic cache (README "Caching"): the embeddings of stored prompts, for the nearest-prompt
-- lookup, in pgvector's `vector` type. pgvector is an extension the server must have (Debian:
-- postgresql-15-pgvector); where it cannot be created, this migration says so (a WARNING, which
-- `gateway migrate` prints) and the gateway keeps the semantic index in each instance's memory.
-- The set-up is a function, so a database where pgvector arrives later is set up by the
-- gateway's next start (src/store/semantic-index-pg.ts calls it) without another migration.
CREATE OR REPLACE FUNCTION gateway_semantic_cache_setup() RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
  -- Several instances may start at once: one sets up, the others then find it done.
  PERFORM pg_advisory_xact_lock(7305114202);
  IF to_regtype('vector') IS NULL THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS vector;
    EXCEPTION WHEN OTHERS THEN
      RETURN 'the pgvector extension could not be created (' || SQLERRM || ')';
    END;
  END IF;
  -- No dimension on the column: each embedding model has its own, and a lookup scans one
  -- partition (one model, scope and parameter set) found by the primary key.
  CREATE TABLE IF NOT EXISTS semantic_cache_vectors (
    partition  text        NOT NULL,
    cache_key  text        NOT NULL,
    embedding  vector      NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (partition, cache_key)
  );
  CREATE INDEX IF NOT EXISTS semantic_cache_vectors_expires_at ON semantic_cache_vectors (expires_at);
  RETURN 'ready';
END
$fn$;

DO $$
DECLARE
  state text := gateway_semantic_cache_setup();
BEGIN
  IF state <> 'ready' THEN
    RAISE WARNING 'semantic cache: %; its index stays in each gateway instance''s memory until pgvector is installed (Debian: postgresql-15-pgvector), which the gateway then sets up at its next start', state;
  END IF;
END
$$;
