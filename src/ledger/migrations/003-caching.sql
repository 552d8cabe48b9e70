-- Caching (README "Caching"). A response cache hit is a row with cache_hit and what the stored
-- answer cost when it was made (saved_usd; the hit itself costs 0). Provider prompt caching:
-- tokens written to the provider's cache beside the cached reads (cached_input_tokens), and
-- what the cache reads saved against the full input price.
ALTER TABLE usage_events
  ADD COLUMN cache_hit              boolean        NOT NULL DEFAULT false,
  ADD COLUMN saved_usd              numeric(20, 9) NOT NULL DEFAULT 0,
  ADD COLUMN cache_write_tokens     bigint         NOT NULL DEFAULT 0,
  ADD COLUMN prompt_cache_saved_usd numeric(20, 9) NOT NULL DEFAULT 0;
