import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Document, LineCounter, Node } from 'yaml';
import type { Diagnostic } from './diagnostics.js';
import { substituteScalar, withFileSecrets, type Env } from './env.js';
import { cacheKey, fileHash, readCached, writeCached } from './startup-cache.js';

type YamlModule = typeof import('yaml');
const requireCjs = createRequire(import.meta.url);
let yamlModule: YamlModule | undefined;

/**
 * The `yaml` package, loaded on first use: a start whose files are all in the startup cache
 * (startup-cache.ts) never loads it (72 modules), nor parses (~250 ms cold for the shipped
 * config). Loaded for a file not cached yet, and for positions of findings.
 */
function yaml(): YamlModule {
  return (yamlModule ??= requireCjs('yaml') as YamlModule);
}

/** A YAML file read with source positions, its data after `${VAR}` substitution. */
export interface YamlSource {
  file: string;
  doc: Document;
  lines: LineCounter;
  /** Plain data after env substitution (undefined when the file does not parse). */
  data: unknown;
  /**
   * Scalars that were one whole expression, by JSON pointer into `data`: the text they were
   * substituted with. Where the schema wants a string, the loader puts this text back in place
   * of the typed value (so `000123` stays `"000123"`).
   */
  substituted: Map<string, string>;
}

/**
 * Reads and parses one YAML file; parse errors become diagnostics at their position. Aliases
 * (`*p1`) and merge keys (`<<: *base`) are resolved; `${...}` expressions are substituted
 * (env.ts), unknown forms reported at their line and column.
 */
export function readYamlSource(file: string, env: Env, diagnostics: Diagnostic[], text?: string): YamlSource {
  let source = text;
  if (source === undefined) {
    try {
      source = readFileSync(file, 'utf8');
    } catch (e) {
      diagnostics.push({ file, line: 1, col: 1, code: 'E_READ', severity: 'error', message: `cannot read file: ${(e as NodeJS.ErrnoException).code ?? 'error'}` });
      const { LineCounter, parseDocument } = yaml();
      return { file, doc: parseDocument(''), lines: new LineCounter(), data: undefined, substituted: new Map() };
    }
  }
  const key = cacheKey('yaml-data', sourceCodeHash(), source);
  const cached = readCached(key, 'json');
  if (cached !== undefined) {
    const fast = fromCachedTree(file, source, JSON.parse(cached), env);
    if (fast) return fast;
  }
  const parsed = parseYaml(file, source, env, diagnostics);
  if (cached === undefined && parsed.data !== undefined) {
    const tree = rawTree(parsed.doc);
    if (tree !== undefined) writeCached(key, 'json', JSON.stringify(tree));
  }
  return parsed;
}

/** What ties a cached tree to the code that made it: this module and the `yaml` package. */
let codeHash: string | undefined;
function sourceCodeHash(): string {
  codeHash ??= cacheKey(fileHash(fileURLToPath(import.meta.url)), fileHash(requireCjs.resolve('yaml/package.json')));
  return codeHash;
}

/** The parse with positions (findings at their line and column). */
function parseYaml(file: string, source: string, env: Env, diagnostics: Diagnostic[]): YamlSource {
  const substituted = new Map<string, string>();
  const { doc, lines } = parseWithPositions(source);
  for (const err of doc.errors) {
    const pos = lines.linePos(err.pos[0]);
    diagnostics.push({ file, line: pos.line, col: pos.col, code: err.code === 'DUPLICATE_KEY' ? 'E_DUPLICATE_KEY' : 'E_YAML', severity: 'error', message: err.message.split('\n')[0]! });
  }
  if (doc.errors.length > 0) return { file, doc, lines, data: undefined, substituted };
  const secrets = withFileSecrets(env);
  const folder = dirname(resolvePath(file));
  const reader: Reader = {
    doc,
    env: secrets,
    resolvePath: (p) => resolvePath(folder, p),
    substituted,
    report: (node, offset, code, message) => {
      const at = positionOf(lines, node, offset);
      diagnostics.push({ file, ...at, code, severity: code.startsWith('W_') ? 'warning' : 'error', message });
    },
    resolving: new Set(),
  };
  const data = toData(doc.contents, reader, '');
  return { file, doc, lines, data, substituted };
}

/** The document with its line counter (findings at their line and column). */
function parseWithPositions(source: string): { doc: Document; lines: LineCounter } {
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  return { doc: parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true }), lines };
}

/**
 * A substituted scalar as data (the parse's walk and the cached tree's share it): a value that
 * stopped being a string keeps its raw text in `substituted`, by JSON pointer (`pointer` is asked only then).
 */
function leafValue(sub: ReturnType<typeof substituteScalar>, pointer: () => string, substituted: Map<string, string>): unknown {
  if (sub.raw !== undefined && typeof sub.value !== 'string') substituted.set(pointer(), sub.raw);
  return typeof sub.value === 'string' ? ownString(sub.value) : sub.value;
}

/**
 * A source from a cached tree: the same data and `substituted` as `parseYaml` (same walk order,
 * same pointers, same `substituteScalar`), the document parsed only if a finding needs a
 * position. Undefined when any expression has a finding: the caller parses then, to report it
 * at its place.
 */
function fromCachedTree(file: string, source: string, tree: unknown, env: Env): YamlSource | undefined {
  const secrets = withFileSecrets(env);
  const folder = dirname(resolvePath(file));
  const substituted = new Map<string, string>();
  let clean = true;
  // A node's JSON pointer is only needed where a substitution turned a string into another type,
  // so it is built then, from the path of keys and indexes walked (`at`), not for every node.
  const at: Array<string | number> = [];
  const pointer = () => at.map((k) => `/${typeof k === 'number' ? k : escapePointer(k)}`).join('');
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const sub = substituteScalar(value, secrets, (p) => resolvePath(folder, p));
      if (sub.missing.length > 0 || sub.problems.length > 0) clean = false;
      return leafValue(sub, pointer, substituted);
    }
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      const items = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) {
        at.push(i);
        items[i] = walk(value[i]);
        at.pop();
      }
      return items;
    }
    const out: Record<string, unknown> = {};
    for (const k in value) {
      at.push(k);
      out[k] = walk((value as Record<string, unknown>)[k]);
      at.pop();
    }
    return out;
  };
  const data = walk(tree);
  if (!clean) return undefined;
  let parsed: { doc: Document; lines: LineCounter } | undefined;
  const parse = () => (parsed ??= parseWithPositions(source));
  return {
    file,
    get doc() { return parse().doc; },
    get lines() { return parse().lines; },
    data,
    substituted,
  };
}

/**
 * The data of a document before substitution, when JSON keeps it exactly; else undefined
 * (not cached). Aliases and merge keys are left to the full walk (one node at several places).
 */
function rawTree(doc: Document): unknown {
  const { isMap, isScalar, isSeq } = yaml();
  let safe = true;
  const walk = (node: unknown): unknown => {
    if (!safe) return undefined;
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (key === '<<' || key === '__proto__') safe = false;
        out[key] = walk(pair.value);
      }
      return out;
    }
    if (isSeq(node)) return node.items.map(walk);
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
      if (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) return v;
      safe = false;
      return undefined;
    }
    if (node == null) return null;
    safe = false; // an alias, or a node kind JSON cannot hold
    return undefined;
  };
  const tree = walk(doc.contents);
  return safe ? tree : undefined;
}

interface Reader {
  doc: Document;
  env: Env;
  resolvePath(p: string): string;
  substituted: Map<string, string>;
  report(node: Node, offset: number, code: string, message: string): void;
  /** Aliases being expanded (a recursive alias is refused, not expanded forever). */
  resolving: Set<Node>;
}

function toData(node: unknown, r: Reader, pointer: string): unknown {
  const { isAlias, isMap, isScalar, isSeq } = yaml();
  if (isAlias(node)) {
    const target = node.resolve(r.doc);
    if (!target) return undefined;
    if (r.resolving.has(target)) {
      r.report(node, 0, 'E_YAML', `alias *${node.source} refers to itself`);
      return null;
    }
    r.resolving.add(target);
    try {
      return toData(target, r, pointer);
    } finally {
      r.resolving.delete(target);
    }
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    const merged: Array<Record<string, unknown>> = [];
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (key === '<<' && isScalar(pair.key) && (isAlias(pair.value) || isSeq(pair.value))) {
        // YAML merge key: the mappings named here fill keys this mapping does not set itself.
        const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
        for (const item of sources) {
          const value = toData(item, r, pointer);
          if (value && typeof value === 'object' && !Array.isArray(value)) merged.push(value as Record<string, unknown>);
          else r.report(item as Node, 0, 'E_YAML', 'a merge key (<<) takes a mapping or a list of mappings');
        }
        continue;
      }
      out[key] = toData(pair.value, r, `${pointer}/${escapePointer(key)}`);
    }
    for (const m of merged) for (const [k, v] of Object.entries(m)) if (!(k in out)) out[k] = v;
    return out;
  }
  if (isSeq(node)) return node.items.map((item, i) => toData(item, r, `${pointer}/${i}`));
  if (isScalar(node)) {
    if (typeof node.value !== 'string') return node.value;
    const sub = substituteScalar(node.value, r.env, r.resolvePath);
    for (const name of sub.missing) r.report(node, 0, 'W_ENV_UNSET', `environment variable ${name} is not set and has no default`);
    for (const p of sub.problems) r.report(node, p.offset, p.code, p.message);
    return leafValue(sub, () => pointer, r.substituted);
  }
  return node == null ? null : undefined;
}

/**
 * The YAML lexer hands out scalars as slices of the file's text, and V8 keeps a slice's whole
 * parent string alive: one model name kept in the runtime held all 80 KB of gateway.yaml for
 * the life of the process. A copy of its own lets the source text go after loading. Strings
 * under 13 characters are never slices.
 */
function ownString(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Line and column where a node starts, or `within` characters into a scalar's text (exact for
 * plain and quoted one-line scalars).
 */
export function positionOf(lines: LineCounter, node: Node | null | undefined, within = 0): { line: number; col: number } {
  const start = node?.range?.[0];
  if (start === undefined) return { line: 1, col: 1 };
  const quoted = yaml().isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') ? 1 : 0;
  const p = lines.linePos(start + (within > 0 ? within + quoted : 0));
  return { line: p.line, col: p.col };
}

/**
 * Position of a data path (`['models', 3, 'pricing']`) in the file. With `key`, points at the
 * last segment's key rather than its value (for unknown-key findings). Falls back to the
 * deepest existing ancestor, so every finding gets a real place.
 */
export function locate(source: YamlSource, path: ReadonlyArray<string | number>, key = false): { line: number; col: number } {
  const { isAlias, isMap, isScalar, isSeq } = yaml();
  let node: unknown = source.doc.contents;
  let best: Node | null = (node as Node) ?? null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (isAlias(node)) node = node.resolve(source.doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg));
      if (!pair) break;
      const last = i === path.length - 1;
      if (last && key && pair.key && typeof pair.key === 'object') return positionOf(source.lines, pair.key as Node);
      node = pair.value;
      best = (pair.value as Node) ?? (pair.key as Node) ?? best;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)];
      if (item === undefined) break;
      node = item;
      best = item as Node;
    } else break;
  }
  return positionOf(source.lines, best);
}
