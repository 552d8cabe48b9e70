-- Body bytes of forwarded (pass-through) requests: what the client sent and what it got.
-- NULL on rows of other routes (their size is in tokens).
ALTER TABLE usage_events ADD COLUMN request_bytes bigint, ADD COLUMN response_bytes bigint;
