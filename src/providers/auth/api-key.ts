import type { ApiKeyAuth } from '../../config/types.js';
import { staticKeyAuthorizer } from './authorizers.js';
import type { AuthKind } from './types.js';

/**
 * `auth: {type: api_key, api_key_env, header?, prefix?}`: a static key. Without `header` it is
 * exactly the `api_key_env` short form (the provider type's own header); with it, the key goes
 * in that header after `prefix` (`api-key: <k>`, `x-api-key: <k>`, `Authorization: Token <k>`).
 */
export const apiKeyKind: AuthKind<ApiKeyAuth> = {
  missing: (ctx) => (ctx.env[ctx.auth.api_key_env] ? undefined : ctx.auth.api_key_env),
  apiKey: (ctx) => ctx.env[ctx.auth.api_key_env] || undefined,
  create(ctx) {
    const key = ctx.env[ctx.auth.api_key_env];
    if (!ctx.auth.header || !key) return undefined;
    return staticKeyAuthorizer(`$${ctx.auth.api_key_env}`, key, ctx.auth.header, ctx.auth.prefix);
  },
  secrets: (ctx) => [ctx.env[ctx.auth.api_key_env]],
};
