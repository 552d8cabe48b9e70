import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { Diagnostic } from './diagnostics.js';
import { substituteScalar, type Env } from './env.js';

/** A YAML file read with source positions, its data after `${VAR}` substitution. */
export interface YamlSource {
  file: string;
  doc: Document;
  lines: LineCounter;
  /** Plain data after env substitution (undefined when the file does not parse). */
  data: unknown;
}

/** Reads and parses one YAML file; parse errors become diagnostics at their position. */
export function readYamlSource(file: string, env: Env, diagnostics: Diagnostic[], text?: string): YamlSource {
  const lines = new LineCounter();
  let source = text;
  if (source === undefined) {
    try {
      source = readFileSync(file, 'utf8');
    } catch (e) {
      diagnostics.push({ file, line: 1, col: 1, code: 'E_READ', severity: 'error', message: `cannot read file: ${(e as NodeJS.ErrnoException).code ?? 'error'}` });
      return { file, doc: parseDocument(''), lines, data: undefined };
    }
  }
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  for (const err of doc.errors) {
    const pos = lines.linePos(err.pos[0]);
    diagnostics.push({ file, line: pos.line, col: pos.col, code: err.code === 'DUPLICATE_KEY' ? 'E_DUPLICATE_KEY' : 'E_YAML', severity: 'error', message: err.message.split('\n')[0]! });
  }
  if (doc.errors.length > 0) return { file, doc, lines, data: undefined };
  const data = toData(doc.contents, env, (node, name) => {
    const at = positionOf(lines, node);
    diagnostics.push({ file, ...at, code: 'W_ENV_UNSET', severity: 'warning', message: `environment variable ${name} is not set and has no default` });
  });
  return { file, doc, lines, data };
}

function toData(node: unknown, env: Env, onMissing: (node: Node, name: string) => void): unknown {
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      out[key] = toData(pair.value, env, onMissing);
    }
    return out;
  }
  if (isSeq(node)) return node.items.map((item) => toData(item, env, onMissing));
  if (isScalar(node)) {
    if (typeof node.value !== 'string') return node.value;
    const sub = substituteScalar(node.value, env);
    for (const name of sub.missing) onMissing(node, name);
    return sub.value;
  }
  return node == null ? null : undefined;
}

/** Line and column where a node starts. */
export function positionOf(lines: LineCounter, node: Node | null | undefined): { line: number; col: number } {
  const offset = node?.range?.[0];
  if (offset === undefined) return { line: 1, col: 1 };
  const p = lines.linePos(offset);
  return { line: p.line, col: p.col };
}

/**
 * Position of a data path (`['models', 3, 'pricing']`) in the file. With `key`, points at the
 * last segment's key rather than its value (for unknown-key findings). Falls back to the
 * deepest existing ancestor, so every finding gets a real place.
 */
export function locate(source: YamlSource, path: ReadonlyArray<string | number>, key = false): { line: number; col: number } {
  let node: unknown = source.doc.contents;
  let best: Node | null = (node as Node) ?? null;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
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
