import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { makeTempDir } from '../../../helpers/temp-dir.js';

/** A key of the generated project (the plain key is known to the test). */
export interface PassthroughKey { key: string; name: string; providers?: string[]; models?: string[]; budget?: { usd: number; period: string }; rpm?: number }

/** Upstream URLs of the project's providers. */
export interface PassthroughUpstreams { openai: string; anthropic: string; dead: string }

/** The provider keys the fake upstreams check. */
export const PROVIDER_KEYS = { openai: 'sk-provider-openai-secret', anthropic: 'sk-ant-provider-secret' } as const;

/** Extra routes beside the repo's: uncharged, catch-all, short-deadline and unreachable pass-through routes. */
const EXTRA_ROUTES: Record<string, Record<string, unknown>> = {
  'free-openai.yaml': { method: ['GET', 'POST'], path: '/free/openai/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'openai', strip_prefix: '/free/openai', allow: ['/v1/*'] } },
  'pt-anthropic-all.yaml': { method: 'POST', path: '/pt/anthropic/{*rest}', auth: 'key', envelope: 'messages', operation: 'proxy', proxy: { provider: 'anthropic', strip_prefix: '/pt/anthropic', allow: ['/v1/messages*'], charge_usd: '0.001' } },
  'pt-slow.yaml': { method: ['GET', 'POST'], path: '/pt/slow/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'slow', strip_prefix: '/pt/slow', charge_usd: '0.5' } },
  // An OpenAI-type provider whose key goes in auth.header (x-api-key), pointed at the Anthropic fake that checks it there.
  'pt-keyed.yaml': { method: 'POST', path: '/pt/keyed/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'keyed', strip_prefix: '/pt/keyed', allow: ['/v1/messages/count_tokens'], charge_usd: '0.001' } },
  'pt-dead.yaml': { method: 'GET', path: '/pt/dead/{*rest}', auth: 'key', envelope: 'messages', operation: 'proxy', proxy: { provider: 'dead', strip_prefix: '/pt/dead', allow: ['/v1/*'], charge_usd: '0.001' } },
  // A static route beside a wildcard one: it must win over `/passthrough/openai/{*rest}`.
  'passthrough-openai-health.yaml': { method: 'GET', path: '/passthrough/openai/health', auth: 'none', envelope: 'default', handler: 'health', operation: 'health' },
};

/**
 * Writes a project whose providers are the fake upstreams: `openai`, `anthropic`, `slow`
 * (the openai fake with 300 ms deadlines), `dead` (a closed port) and `keyed` (an OpenAI type
 * whose key goes in `auth.header`, at the Anthropic fake), the sandbox models, one
 * `openai/gpt-pt` model, and the given keys; routes: the repo's plus EXTRA_ROUTES.
 */
export function writePassthroughProject(upstreams: PassthroughUpstreams, keys: PassthroughKey[], ledger?: { url: string; journal: string }): string {
  const dir = projectWithRoutes('gw-passthrough-', EXTRA_ROUTES);
  const repo = parse(readFileSync(resolve(process.cwd(), 'gateway.yaml'), 'utf8')) as { models: Array<Record<string, unknown>> };
  const config = {
    server: { host: '127.0.0.1', port: 8080, log_level: 'silent' },
    auth: { keys_env: 'GATEWAY_API_KEYS', keys: keys.map(({ key, ...spec }) => ({ ...spec, sha256: createHash('sha256').update(key).digest('hex') })) },
    store: { url: 'memory', on_error: 'open' },
    files: { dir: join(dir, 'files'), default_provider: 'sandbox' },
    ...(ledger ? { ledger: { url: ledger.url, journal: ledger.journal, flush_interval_ms: 50 } } : {}),
    providers: {
      sandbox: { type: 'sandbox' },
      openai: { type: 'openai-chat', base_url: `${upstreams.openai}/v1`, api_key_env: 'PT_OPENAI_KEY', base_url_env: 'PT_OPENAI_URL' },
      anthropic: { type: 'anthropic-messages', base_url: upstreams.anthropic, api_key_env: 'PT_ANTHROPIC_KEY', base_url_env: 'PT_ANTHROPIC_URL' },
      slow: { type: 'openai-chat', base_url: `${upstreams.openai}/v1`, api_key_env: 'PT_OPENAI_KEY', base_url_env: 'PT_SLOW_URL', routing: { timeouts: { first_byte_ms: 300, idle_ms: 300 } } },
      dead: { type: 'anthropic-messages', base_url: upstreams.dead, api_key_env: 'PT_ANTHROPIC_KEY', base_url_env: 'PT_DEAD_URL' },
      keyed: { type: 'openai-chat', base_url: upstreams.anthropic, base_url_env: 'PT_KEYED_URL', auth: { type: 'api_key', api_key_env: 'PT_ANTHROPIC_KEY', header: 'X-Api-Key' } },
    },
    models: [
      ...repo.models.filter((m) => String(m.id).startsWith('sandbox/')),
      { id: 'openai/gpt-pt', provider: 'openai', endpoints: ['/v1/chat/completions'], pricing: { prompt: '0.000001', completion: '0.000002' } },
    ],
  };
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

/** A temporary project folder whose routes/ holds the repo's route files and `extra` (file name -> route). */
export function projectWithRoutes(prefix: string, extra: Record<string, Record<string, unknown>>): string {
  const dir = makeTempDir(prefix);
  const routes = join(dir, 'routes');
  mkdirSync(routes);
  const repoRoutes = resolve(process.cwd(), 'routes');
  for (const f of readdirSync(repoRoutes)) copyFileSync(join(repoRoutes, f), join(routes, f));
  for (const [name, route] of Object.entries(extra)) writeFileSync(join(routes, name), stringify(route));
  return dir;
}

/** The environment of the project's gateway. */
export const passthroughEnv = { PT_OPENAI_KEY: PROVIDER_KEYS.openai, PT_ANTHROPIC_KEY: PROVIDER_KEYS.anthropic };
