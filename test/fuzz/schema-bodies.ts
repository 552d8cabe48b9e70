/**
 * Bodies from a route's JSON Schema (routes/*.yaml): a minimal valid-looking base body (so
 * mutations reach past validation into the handlers) and the list of field paths to mutate,
 * with the JSON types each path declares (to know which mutations must be refused).
 */

/** A JSON Schema node as found in routes/*.yaml (only what the fuzzer reads). */
export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  enum?: unknown[];
  const?: unknown;
  minItems?: number;
  minLength?: number;
  minimum?: number;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

/** A field of the base body the fuzzer mutates. */
export interface FieldPath {
  /** Keys from the body root, e.g. ['messages', 0, 'content']. */
  path: Array<string | number>;
  /** JSON types the schema declares for the field, when it declares them plainly. */
  types?: string[];
}

/** A plain value of the first declared type of `schema`, filling required properties. */
export function sampleValue(schema: SchemaNode | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return 'hello';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : branch ? undefined : 'string')) {
    case 'string': return 'hello'.padEnd(Math.max(5, schema.minLength ?? 0), 'o');
    case 'integer':
    case 'number': return Math.max(1, schema.minimum ?? 1);
    case 'boolean': return false;
    case 'array': return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sampleValue(schema.items, depth + 1));
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set([...(schema.required ?? []), ...(branch?.required ?? [])]);
      for (const key of required) out[key] = sampleValue(schema.properties?.[key] ?? branch?.properties?.[key], depth + 1);
      return out;
    }
    default: return branch ? sampleValue(branch, depth + 1) : 'hello';
  }
}

/**
 * Every field path of the schema down to `maxDepth` (object properties; array items as index
 * 0), with the types it declares plainly (no anyOf/oneOf at the field itself).
 */
export function fieldPaths(schema: SchemaNode, maxDepth = 3, prefix: Array<string | number> = []): FieldPath[] {
  const out: FieldPath[] = [];
  if (prefix.length >= maxDepth) return out;
  const props = { ...(schema.properties ?? {}) };
  for (const [key, child] of Object.entries(props)) {
    const path = [...prefix, key];
    const types = declaredTypes(child);
    out.push({ path, ...(types ? { types } : {}) });
    if (child.properties) out.push(...fieldPaths(child, maxDepth, path));
    if (child.items && (child.items.properties || child.items.type)) {
      const itemTypes = declaredTypes(child.items);
      out.push({ path: [...path, 0], ...(itemTypes ? { types: itemTypes } : {}) });
      if (child.items.properties) out.push(...fieldPaths(child.items, maxDepth, [...path, 0]));
    }
  }
  return out;
}

function declaredTypes(schema: SchemaNode): string[] | undefined {
  if (schema.anyOf || schema.oneOf || schema.type === undefined) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  // JSON Schema: an integer is a number too.
  return types.includes('number') ? [...types, 'integer'] : types;
}

/** The JSON type of a value in JSON Schema's words. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A copy of `body` with the value at `path` replaced (creating parents as the base has them). */
export function setAt(body: Record<string, unknown>, path: Array<string | number>, value: unknown): Record<string, unknown> | undefined {
  const copy = structuredClone(body);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) {
    const next = (node as Record<string | number, unknown>)[key];
    if (next === null || typeof next !== 'object') return undefined; // the base has no such parent
    node = next;
  }
  (node as Record<string | number, unknown>)[path.at(-1)!] = value;
  return copy;
}
