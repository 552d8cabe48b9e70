import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { makeTempDir } from '../../../helpers/temp-dir.js';

/** A key declared in the generated gateway.yaml (the plain key is known to the test). */
export interface TestKey { key: string; name: string; models?: string[]; rpm?: number; tpm?: number; budget?: { usd: number; period: string } }

/** Prices the budget tests rely on (USD per unit), set on the sandbox models. */
export const TEST_PRICING: Record<string, Record<string, string>> = {
  'sandbox/echo-1': { prompt: '0.000001', completion: '0.00001', input_cache_read: '0.0000001' },
  'sandbox/embed-1': { prompt: '0.0000001' },
  'sandbox/rerank-1': { request: '0.00005' },
  'sandbox/image-1': { image: '0.01' },
  'sandbox/speech-1': { audio_second: '0.001' },
  'sandbox/music-1': { audio_second: '0.001' },
  'sandbox/transcribe-1': { audio_second: '0.001' },
  'sandbox/video-1': { video_second: '0.05' },
  'sandbox/realtime-1': { audio_second: '0.1' },
};

/** A fresh key string. */
export function newKey(label: string): string {
  return `sk-${label}-${randomBytes(9).toString('hex')}`;
}

/**
 * Writes a config project (gateway.yaml, pointing at the repo's routes/) to a temp folder: the
 * sandbox provider and the sandbox models of the repo's gateway.yaml with TEST_PRICING, the
 * given keys (sha256 only), store and port. Returns the path of the gateway.yaml.
 */
export function writeProject(options: { keys?: TestKey[]; store?: { url: string; on_error: 'open' | 'closed' }; port?: number; discoveryRequests?: number; realtimeSecret?: string; filesDir?: string; fakeOpenAiBaseUrl?: string; fakeAnthropicBaseUrl?: string } = {}): string {
  const repo = parse(readFileSync(resolve(process.cwd(), 'gateway.yaml'), 'utf8')) as { models: Array<Record<string, unknown>> };
  const models: Array<Record<string, unknown>> = repo.models
    .filter((m) => String(m.id).startsWith('sandbox/'))
    .map((m) => ({ ...m, pricing: TEST_PRICING[String(m.id)] ?? m.pricing }));
  const providers: Record<string, unknown> = { sandbox: { type: 'sandbox' } };
  if (options.fakeOpenAiBaseUrl) {
    providers.fake = { type: 'openai-chat', base_url: options.fakeOpenAiBaseUrl, api_key_env: 'FAKE_API_KEY', base_url_env: 'FAKE_BASE_URL' };
    models.push({
      id: 'fake/chat', provider: 'fake', upstream: 'fake-chat', endpoints: ['/v1/chat/completions'], max_output_tokens: 4096, context_length: 32768,
      pricing: { prompt: '0.000001', completion: '0.00001' },
    });
  }
  if (options.fakeAnthropicBaseUrl) {
    providers.fakeanthropic = { type: 'anthropic-messages', base_url: options.fakeAnthropicBaseUrl, api_key_env: 'FAKE_API_KEY', base_url_env: 'FAKE_ANTHROPIC_BASE_URL', options: { anthropic_version: '2023-06-01', default_max_tokens: 1024 } };
    models.push({
      id: 'fakeanthropic/claude', provider: 'fakeanthropic', upstream: 'claude-fake', endpoints: ['/v1/messages'], max_output_tokens: 4096, context_length: 32768,
      pricing: { prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003' },
    });
  }
  const dir = makeTempDir('gw-budget-');
  const config = {
    routes: resolve(process.cwd(), 'routes'),
    server: { host: '127.0.0.1', port: options.port ?? 8080, log_level: 'silent' },
    auth: {
      keys_env: 'GATEWAY_API_KEYS',
      keys: (options.keys ?? []).map(({ key, ...spec }) => ({ ...spec, sha256: createHash('sha256').update(key).digest('hex') })),
    },
    limits: { anonymous_discovery: { requests: options.discoveryRequests ?? 1000, window_seconds: 60 } },
    store: options.store ?? { url: 'memory', on_error: 'open' },
    files: { dir: options.filesDir ?? join(dir, 'files'), default_provider: 'sandbox' },
    // A shared store needs one realtime secret across instances (lint error otherwise).
    realtime: options.realtimeSecret ? { secret: options.realtimeSecret } : options.store && options.store.url !== 'memory' ? { secret: 'test-realtime-secret' } : {},
    providers,
    models,
  };
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
}
