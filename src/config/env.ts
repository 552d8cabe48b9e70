import { readFileSync } from 'node:fs';

/**
 * Expressions in YAML string scalars:
 * - `${VAR}` and `${VAR:-default}`: the environment (an empty variable counts as unset);
 *   `VAR_FILE` naming a file stands in for an unset `VAR` (Docker/Kubernetes secrets);
 * - `${file:/run/secrets/x}`: the contents of a file (relative paths: from the YAML file's folder);
 * - `$${...}`: a literal `${...}`.
 * Any other `${...}` form is a finding, never a literal. A scalar that is exactly one expression
 * takes the type its value reads as (`port: ${PORT:-8080}` is the number 8080) unless the
 * schema says string there: the loader then keeps the text as it was (`raw`), so a digits-only
 * secret keeps its leading zeros (see meta-schema.ts).
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** A problem with one expression, at `offset` characters into the scalar's text. */
export interface ExpressionProblem {
  offset: number;
  code: 'E_ENV_FORM' | 'W_SECRET_FILE';
  message: string;
}

/** Result of substituting one scalar. */
export interface Substitution {
  value: unknown;
  /** For a scalar that is one whole expression: the substituted text before typing. */
  raw?: string;
  /** Variables that had no value and no default. */
  missing: readonly string[];
  problems: readonly ExpressionProblem[];
}

const NONE: readonly never[] = Object.freeze([]);

const EXPRESSION = /\$?\$\{([^}]*)\}/g;
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;
const FILE = /^file:(.+)$/;

/** Reads a secret file as a value: its text without the trailing newline(s). */
export function readSecretFile(path: string): string {
  return readFileSync(path, 'utf8').replace(/[\r\n]+$/, '');
}

/**
 * Substitutes the expressions of one string scalar (`env` as given: wrap it with
 * `withFileSecrets` for `<VAR>_FILE` support, as the loader does). `resolvePath` turns a `${file:...}` path
 * into the path to read (the loader resolves it against the YAML file's folder).
 */
export function substituteScalar(text: string, env: Env, resolvePath: (p: string) => string = (p) => p): Substitution {
  // Most scalars hold no expression: answered without arrays of their own (every config load
  // and every cached-tree walk asks this of each string).
  if (!text.includes('${')) return { value: text, missing: NONE, problems: NONE };
  const missing: string[] = [];
  const problems: ExpressionProblem[] = [];
  let count = 0;
  let whole = false;
  const out = text.replace(EXPRESSION, (match: string, body: string, offset: number) => {
    if (match.startsWith('$$')) return match.slice(1);
    count++;
    whole = match.length === text.length;
    const variable = VARIABLE.exec(body);
    if (variable) {
      const v = env[variable[1]!];
      if (v !== undefined && v !== '') return v;
      if (variable[2] !== undefined) return variable[2];
      missing.push(variable[1]!);
      return '';
    }
    const file = FILE.exec(body);
    if (file) {
      try {
        return readSecretFile(resolvePath(file[1]!.trim()));
      } catch (e) {
        problems.push({ offset, code: 'W_SECRET_FILE', message: `cannot read secret file ${file[1]!.trim()} (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
        return '';
      }
    }
    problems.push({ offset, code: 'E_ENV_FORM', message: `unknown expression '${match}': use \${VAR}, \${VAR:-default} or \${file:/path} (write $\${...} for a literal)` });
    return match;
  });
  const unclosed = findUnclosed(text);
  if (unclosed >= 0) problems.push({ offset: unclosed, code: 'E_ENV_FORM', message: "'${' without a closing '}' (write $${ for a literal)" });
  if (count === 1 && whole && problems.length === 0) return { value: readTyped(out), raw: out, missing, problems };
  return { value: out, missing, problems };
}

/** Offset of a `${` that no `}` closes, or -1. */
function findUnclosed(text: string): number {
  const last = text.lastIndexOf('${');
  if (last < 0 || text.indexOf('}', last) >= 0) return -1;
  return last > 0 && text[last - 1] === '$' ? -1 : last;
}

function readTyped(raw: string): unknown {
  if (/^-?\d+$/.test(raw)) return Number.parseInt(raw, 10);
  if (/^-?\d+\.\d+$/.test(raw)) return Number.parseFloat(raw);
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw;
}

const wrapped = new WeakSet<object>();
const problemsOf = new WeakMap<object, Map<string, string>>();

/**
 * The environment as the config sees it: an unset (or empty) `VAR` takes the contents of the
 * file named by `VAR_FILE`, for every variable the config reads (`${VAR}`, `api_key_env`,
 * `base_url_env`, `keys_env` ...). Files are read when first asked for; a file that cannot be
 * read leaves the variable unset and is reported by `secretFileProblems`.
 */
export function withFileSecrets(env: Env): Env {
  if (wrapped.has(env)) return env;
  const cache = new Map<string, string | undefined>();
  const problems = new Map<string, string>();
  const proxy = new Proxy(env, {
    get(target, prop) {
      if (typeof prop !== 'string') return undefined;
      const direct = target[prop];
      if ((direct !== undefined && direct !== '') || prop.endsWith('_FILE')) return direct;
      const path = target[`${prop}_FILE`];
      if (!path) return direct;
      if (!cache.has(prop)) {
        try {
          cache.set(prop, readSecretFile(path));
        } catch (e) {
          cache.set(prop, undefined);
          problems.set(prop, `${prop}_FILE: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
        }
      }
      return cache.get(prop);
    },
  });
  wrapped.add(proxy);
  problemsOf.set(proxy, problems);
  return proxy;
}

/** `<VAR>_FILE` files that could not be read so far through this environment. */
export function secretFileProblems(env: Env): string[] {
  return [...(problemsOf.get(env)?.values() ?? [])];
}
