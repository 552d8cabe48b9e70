-- One row per billed request. The key is (request_id, started_at): a replay of the journal
-- writes the same pair again and ON CONFLICT DO NOTHING keeps the first.
-- Partitioned by month of started_at (UTC); partitions are created ahead by the writer and by
-- `gateway migrate` (ensure_usage_partition below).
CREATE TABLE usage_events (
  request_id          text        NOT NULL,
  started_at          timestamptz NOT NULL,
  key_id              text,
  key_name            text,
  team                text,
  model               text,
  requested_model     text,
  provider            text,
  upstream            text,
  operation           text,
  route               text,
  input_tokens        bigint      NOT NULL DEFAULT 0,
  output_tokens       bigint      NOT NULL DEFAULT 0,
  cached_input_tokens bigint      NOT NULL DEFAULT 0,
  reasoning_tokens    bigint      NOT NULL DEFAULT 0,
  tokens_estimated    boolean     NOT NULL DEFAULT false,
  cost_usd            numeric(20, 9) NOT NULL DEFAULT 0,
  status              integer,
  error_code          text,
  latency_ms          integer,
  ttft_ms             integer,
  attempts            integer     NOT NULL DEFAULT 0,
  streamed            boolean     NOT NULL DEFAULT false,
  PRIMARY KEY (request_id, started_at)
) PARTITION BY RANGE (started_at);

-- Reports filter by time and group by key, team or model: leading column = the filter.
CREATE INDEX usage_events_key_time   ON usage_events (key_id, started_at);
CREATE INDEX usage_events_team_time  ON usage_events (team, started_at);
CREATE INDEX usage_events_model_time ON usage_events (model, started_at);
CREATE INDEX usage_events_time       ON usage_events (started_at);

-- Creates the month partition holding `at` (UTC) unless it exists. Serialized by an advisory
-- lock so concurrent writers on several instances never race on CREATE TABLE.
CREATE FUNCTION ensure_usage_partition(at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month_start timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  part text := format('usage_events_%s', to_char(month_start AT TIME ZONE 'UTC', 'YYYY_MM'));
BEGIN
  IF to_regclass(quote_ident(current_schema()) || '.' || part) IS NOT NULL THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('usage_events_partitions'));
  EXECUTE format(
    'CREATE TABLE IF NOT EXISTS %I PARTITION OF usage_events FOR VALUES FROM (%L) TO (%L)',
    part, month_start, month_start + interval '1 month');
END $$;
