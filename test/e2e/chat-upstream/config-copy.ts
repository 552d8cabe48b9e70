import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseDocument, YAMLMap } from 'yaml';

/** The config the e2e tests start from: GATEWAY_TEST_CONFIG or the repo gateway.yaml. */
export function baseConfigPath(): string {
  return process.env.GATEWAY_TEST_CONFIG ?? resolve(process.cwd(), 'gateway.yaml');
}

/** A model of the base catalog, as the tests need to know it. */
export interface CatalogModel { id: string; upstream: string; parameters: string[] }

/**
 * The first chat model of a provider in the base catalog (so the tests run on a real catalog
 * entry, whatever models the catalog lists today). Its upstream name is `upstream:` or the id
 * without the provider prefix.
 */
export function findChatModel(provider: string): CatalogModel {
  const doc = parseDocument(readFileSync(baseConfigPath(), 'utf8'));
  const models = (doc.toJS() as { models?: Array<Record<string, unknown>> }).models ?? [];
  const model = models.find((m) => m.provider === provider && Array.isArray(m.endpoints) && m.endpoints.includes('/v1/chat/completions') && Array.isArray(m.parameters) && m.parameters.includes('stream_options'));
  if (!model) throw new Error(`no chat model of provider '${provider}' in ${baseConfigPath()}`);
  const id = String(model.id);
  return { id, upstream: typeof model.upstream === 'string' ? model.upstream : id.slice(id.indexOf('/') + 1), parameters: (model.parameters as string[]).map(String) };
}

/** A temporary copy of the base config with extra providers and models written in YAML only. */
export interface ConfigCopy { path: string; remove(): void }

/**
 * Writes a copy of the base config into a temp folder: `routes` points at the base config's
 * routes folder, and the given providers and models are appended as plain YAML, exactly as an
 * operator would add an OpenAI-compatible provider (no code).
 */
export function writeConfigCopy(extra: { providers: Record<string, Record<string, unknown>>; models: Array<Record<string, unknown>> }): ConfigCopy {
  const base = baseConfigPath();
  const doc = parseDocument(readFileSync(base, 'utf8'));
  const routes = doc.get('routes');
  doc.set('routes', resolve(dirname(base), typeof routes === 'string' ? routes : 'routes'));
  const providers = doc.get('providers') as YAMLMap;
  for (const [name, spec] of Object.entries(extra.providers)) providers.set(name, doc.createNode(spec));
  for (const model of extra.models) doc.addIn(['models'], doc.createNode(model));
  const dir = mkdtempSync(join(tmpdir(), 'gateway-e2e-'));
  const path = join(dir, 'gateway.yaml');
  writeFileSync(path, doc.toString());
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
