/**
 * A throw-away config project holding only the built-in sandbox provider and its models from
 * the real gateway.yaml, plus a copy of the real routes/, so validation tests exercise the
 * shipped route files without depending on any other provider's configuration.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

/** A temporary project: its gateway.yaml path and a remover. */
export interface SandboxProject { configPath: string; dir: string; remove(): void }

/** Writes the sandbox-only project into a new temporary folder. */
export function createSandboxProject(): SandboxProject {
  const root = process.cwd();
  const config = parse(readFileSync(path.resolve(root, 'gateway.yaml'), 'utf8')) as {
    providers: Record<string, { type: string }>;
    models: Array<{ provider: string }>;
    files?: Record<string, unknown>;
  };
  const sandboxNames = Object.keys(config.providers).filter((name) => config.providers[name]!.type === 'sandbox');
  config.providers = Object.fromEntries(sandboxNames.map((name) => [name, config.providers[name]!]));
  config.models = config.models.filter((m) => sandboxNames.includes(m.provider));
  if (config.files) config.files.default_provider = sandboxNames[0];
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-validation-'));
  writeFileSync(path.join(dir, 'gateway.yaml'), stringify(config));
  cpSync(path.resolve(root, 'routes'), path.join(dir, 'routes'), { recursive: true });
  return { configPath: path.join(dir, 'gateway.yaml'), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
