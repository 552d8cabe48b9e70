/**
 * `${VAR}` and `${VAR:-default}` substitution in YAML string scalars.
 * A scalar that is exactly one expression takes the type its value reads as (so
 * `port: ${PORT:-8080}` is the number 8080); an expression inside other text stays a string.
 */
const EXPRESSION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

export type Env = Readonly<Record<string, string | undefined>>;

/** Result of substituting one scalar: the value and any variable that had no value and no default. */
export interface Substitution { value: unknown; missing: string[] }

/** Substitutes environment expressions in one string scalar. */
export function substituteScalar(text: string, env: Env): Substitution {
  const missing: string[] = [];
  const resolve = (name: string, fallback: string | undefined): string => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  };
  const whole = WHOLE.exec(text);
  if (whole) return { value: readTyped(resolve(whole[1]!, whole[2])), missing };
  if (!text.includes('${')) return { value: text, missing };
  return { value: text.replace(EXPRESSION, (_m, name: string, fb: string | undefined) => resolve(name, fb)), missing };
}

function readTyped(raw: string): unknown {
  if (/^-?\d+$/.test(raw)) return Number.parseInt(raw, 10);
  if (/^-?\d+\.\d+$/.test(raw)) return Number.parseFloat(raw);
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw;
}
