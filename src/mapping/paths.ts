import { MediaValue } from './media.js';

/**
 * Paths of the mapping vocabulary: dot-separated segments; a number indexes an array, `*` maps
 * over an array (results flattened one level), and the first segment may name a root of the
 * scope (`$item`, `$index`, `$request`, `$bytes`). Parsed once at startup.
 */
export interface CompiledPath {
  readonly text: string;
  /** Scope root (`item`, `index`, `request`, `bytes`), or undefined for the default root. */
  readonly root?: string;
  readonly segments: readonly Segment[];
}

export type Segment = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'all' };

/** Scope roots a path may start with. */
export const PATH_ROOTS = ['item', 'index', 'request', 'bytes'] as const;

/** Parses a path; throws on an unknown `$root` or an empty segment. */
export function compilePath(text: string): CompiledPath {
  const parts = text.split('.');
  let root: string | undefined;
  if (parts[0]!.startsWith('$')) {
    root = parts.shift()!.slice(1);
    if (!(PATH_ROOTS as readonly string[]).includes(root)) throw new Error(`unknown path root '$${root}' in '${text}' (roots: ${PATH_ROOTS.map((r) => `$${r}`).join(', ')})`);
  }
  const segments = parts.map((p): Segment => {
    if (p === '') throw new Error(`empty segment in path '${text}'`);
    if (p === '*') return { kind: 'all' };
    if (/^\d+$/.test(p)) return { kind: 'index', index: Number(p) };
    return { kind: 'key', key: p };
  });
  return { text, root, segments };
}

/** The value at a path below a start value (undefined when any step is missing). */
export function readPath(start: unknown, segments: readonly Segment[], from = 0): unknown {
  let value = start;
  for (let i = from; i < segments.length; i++) {
    if (value === undefined || value === null) return undefined;
    const seg = segments[i]!;
    if (seg.kind === 'all') {
      if (!Array.isArray(value)) return undefined;
      const out: unknown[] = [];
      for (const item of value) {
        const v = readPath(item, segments, i + 1);
        if (Array.isArray(v) && segments.slice(i + 1).some((s) => s.kind === 'all')) out.push(...v);
        else if (v !== undefined && v !== null) out.push(v);
      }
      return out;
    }
    if (seg.kind === 'index') {
      value = Array.isArray(value) ? value[seg.index] : typeof value === 'object' ? (value as Record<string, unknown>)[String(seg.index)] : undefined;
    } else if (value instanceof MediaValue) {
      value = value.field(seg.key);
    } else if (typeof value === 'object' && !Array.isArray(value)) {
      value = Object.prototype.hasOwnProperty.call(value, seg.key) ? (value as Record<string, unknown>)[seg.key] : undefined;
    } else {
      return undefined;
    }
  }
  return value;
}

/**
 * Sets a value at a dotted target path, creating objects (and arrays for numeric segments).
 * `undefined` values are not set, so absent inputs leave no trace upstream.
 */
export function writePath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  if (value === undefined) return;
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const nextIsIndex = /^\d+$/.test(path[i + 1]!);
    const slot = (node as Record<string, unknown>)[key];
    if (slot === null || typeof slot !== 'object') {
      const created: Record<string, unknown> | unknown[] = nextIsIndex ? [] : {};
      (node as Record<string, unknown>)[key] = created;
      node = created;
    } else {
      node = slot as Record<string, unknown> | unknown[];
    }
  }
  (node as Record<string, unknown>)[path[path.length - 1]!] = value;
}

/** True when a value counts as given (not undefined, not null). */
export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}
