-- Keys and teams managed at runtime through the admin API, and the audit trail of every change.
CREATE TABLE gateway_teams (
  id            text PRIMARY KEY,
  name          text NOT NULL UNIQUE,
  models        text[],
  rpm           integer,
  tpm           integer,
  budget_usd    numeric(20, 9),
  budget_period text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE gateway_keys (
  id            text PRIMARY KEY,
  name          text NOT NULL,
  team_id       text REFERENCES gateway_teams (id),
  -- sha256 of the secret; the secret itself is shown once and never stored.
  key_hash      bytea NOT NULL UNIQUE,
  key_hint      text NOT NULL,
  models        text[],
  rpm           integer,
  tpm           integer,
  budget_usd    numeric(20, 9),
  budget_period text,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  rotated_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gateway_keys_team ON gateway_keys (team_id);

CREATE TABLE gateway_audit (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       text NOT NULL,
  action      text NOT NULL,
  target_type text NOT NULL,
  target_id   text NOT NULL,
  before      jsonb,
  after       jsonb
);
CREATE INDEX gateway_audit_target ON gateway_audit (target_type, target_id, at);
