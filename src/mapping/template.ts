import { compilePath, type CompiledPath } from './paths.js';

/** Where template names are looked up: named variables first, then paths in the scope. */
export interface TemplateScope {
  vars: Readonly<Record<string, string | undefined>>;
  read(path: CompiledPath): unknown;
}

type Part = string | { path: CompiledPath; fallback?: string; variable?: string };

/** A template compiled once: `"models/{upstream_model}:embed"`, `"{voice:-JBFqnCBsd6RMkjVDRZzb}"`. */
export interface CompiledTemplate {
  readonly text: string;
  /** Top-level client fields the template reads (plain paths). */
  readonly fields: readonly string[];
  /** The text, or undefined when a name without default is absent. `encode` escapes each value. */
  render(scope: TemplateScope, encode?: (value: string) => string): string | undefined;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** True when a string contains a `{name}` placeholder. */
export function isTemplate(text: string): boolean {
  return /\{[^{}]+\}/.test(text);
}

/** Compiles a template; throws with the reason on a malformed name. */
export function compileTemplate(text: string, variables: ReadonlySet<string>): CompiledTemplate {
  const parts: Part[] = [];
  const fields: string[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, match.index));
    const [name, fallback] = splitDefault(match[1]!.trim());
    if (!/^\$?[A-Za-z_][\w.*$-]*$/.test(name)) throw new Error(`bad placeholder '{${match[1]}}' in template '${text}'`);
    const path = compilePath(name);
    const variable = variables.has(name) ? name : undefined;
    const head = path.segments[0];
    if (!variable && (!path.root || path.root === 'request') && head?.kind === 'key') fields.push(head.key);
    parts.push({ path, fallback, variable });
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return {
    text,
    fields,
    render(scope, encode = (v) => v) {
      let out = '';
      for (const part of parts) {
        if (typeof part === 'string') {
          out += part;
          continue;
        }
        const value = part.variable !== undefined ? scope.vars[part.variable] : scope.read(part.path);
        if (value === undefined || value === null || value === '') {
          if (part.fallback === undefined) return undefined;
          out += encode(part.fallback);
        } else {
          out += encode(typeof value === 'object' ? JSON.stringify(value) : String(value));
        }
      }
      return out;
    },
  };
}

function splitDefault(inner: string): [string, string | undefined] {
  const at = inner.indexOf(':-');
  return at < 0 ? [inner, undefined] : [inner.slice(0, at).trim(), inner.slice(at + 2)];
}

