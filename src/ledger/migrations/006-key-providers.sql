-- Provider name globs a managed key may reach (as `providers:` on gateway.yaml keys): by model
-- call or pass-through route, 403 provider_not_allowed otherwise. NULL = every provider.
ALTER TABLE gateway_keys ADD COLUMN providers text[];
