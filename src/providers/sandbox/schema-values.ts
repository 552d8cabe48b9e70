/**
 * Builds a JSON value that satisfies a JSON Schema, filled with values taken from a user text:
 * strings from its words (proper nouns first), numbers from its numerals, enums their first value.
 * Used for sandbox tool-call arguments and `json_schema` answers. Supports the subset tools use
 * in practice: type (or a list of types), properties/required, items/minItems/maxItems, enum,
 * const, default, anyOf/oneOf (first branch), allOf (merged), local $ref, string formats,
 * minLength/maxLength, minimum/maximum/exclusive bounds/multipleOf.
 */

type Schema = Record<string, unknown>;

/** Where the builder takes its words and numbers from. Consumed in order, then cycled. */
export interface ValueSource {
  words: string[];
  numbers: number[];
  wordIndex: number;
  numberIndex: number;
}

const STOPWORDS = new Set(('a an the and or but if then else of to in on at by for with from into about as is are was were be been ' +
  'do does did can could would should will shall may might must i me my you your we our they them it its this that these those ' +
  'what whats which who whom whose when where why how please tell show give get find call use using some any all me us there here ' +
  'hi hello hey thanks thank like want need know let lets also just than too very not no yes').split(' '));

const MAX_DEPTH = 6;

/** A value source over a text; `exclude` holds words never used as values (e.g. tool names). */
export function createValueSource(text: string, exclude: Iterable<string> = []): ValueSource {
  const excluded = new Set<string>();
  for (const item of exclude) {
    excluded.add(item.toLowerCase());
    for (const part of item.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (part) excluded.add(part);
  }
  const proper: string[] = [];
  const common: string[] = [];
  let run: string[] = [];
  let lastEnd = -1;
  const flush = (): void => { if (run.length > 0) proper.push(run.join(' ')); run = []; };
  for (const match of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu)) {
    const word = match[0].replace(/['_-]+$/u, '');
    const start = match.index ?? 0;
    const lower = word.toLowerCase();
    if (/^\d+([.,]\d+)?$/.test(word) || STOPWORDS.has(lower.replace(/'/g, '')) || excluded.has(lower)) { flush(); lastEnd = -1; continue; }
    const before = text.slice(0, start).trimEnd();
    const sentenceStart = before.length === 0 || /[.!?:\n]$/.test(before);
    const capitalized = /^\p{Lu}/u.test(word) && !sentenceStart;
    if (capitalized) {
      // Adjacent capitalized words form one value ("New York").
      if (run.length > 0 && text.slice(lastEnd, start) !== ' ') flush();
      run.push(word);
      lastEnd = start + match[0].length;
    } else {
      flush();
      lastEnd = -1;
      common.push(word);
    }
  }
  flush();
  const words: string[] = [];
  const seen = new Set<string>();
  // Proper nouns first, then the other words from the end (questions end on their object).
  for (const word of [...proper, ...common.reverse()]) {
    if (!seen.has(word.toLowerCase())) { seen.add(word.toLowerCase()); words.push(word); }
  }
  const numbers = [...text.matchAll(/(?<![\p{L}\d.])-?\d+(?:\.\d+)?/gu)].map((m) => Number(m[0]));
  return { words: words.length > 0 ? words : ['sandbox'], numbers, wordIndex: 0, numberIndex: 0 };
}

/** A value valid against `schema` (as far as the supported subset goes), drawn from `source`. */
export function buildSchemaValue(schema: unknown, source: ValueSource, root: unknown = schema): unknown {
  return buildValue(asSchema(schema), source, asSchema(root), 0, 0);
}

function asSchema(value: unknown): Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : {};
}

function resolveRef(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 8; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#')) return {};
    let target: unknown = root;
    for (const segment of ref.slice(1).split('/').filter(Boolean)) {
      target = asSchema(target)[decodeURIComponent(segment.replace(/~1/g, '/').replace(/~0/g, '~'))];
    }
    const { $ref: _ref, ...rest } = current;
    current = { ...asSchema(target), ...rest };
  }
  return current;
}

function mergeAllOf(schema: Schema): Schema {
  if (!Array.isArray(schema.allOf)) return schema;
  const merged: Schema = { ...schema };
  delete merged.allOf;
  const properties: Schema = { ...asSchema(schema.properties) };
  const required = new Set<string>(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const part of schema.allOf.map(asSchema)) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') Object.assign(properties, asSchema(value));
      else if (key === 'required' && Array.isArray(value)) value.forEach((r) => required.add(String(r)));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function pickType(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function buildValue(input: Schema, source: ValueSource, root: Schema, depth: number, variant: number): unknown {
  const schema = mergeAllOf(resolveRef(input, root));
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[variant % schema.enum.length];
  if (schema.default !== undefined) return schema.default;
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches && branches.length > 0) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return buildValue({ ...rest, ...asSchema(branches[0]) }, source, root, depth, variant);
  }
  switch (pickType(schema)) {
    case 'object': return depth >= MAX_DEPTH ? {} : buildObject(schema, source, root, depth);
    case 'array': return depth >= MAX_DEPTH ? [] : buildArray(schema, source, root, depth);
    case 'integer': return buildNumber(schema, source, true);
    case 'number': return buildNumber(schema, source, false);
    case 'boolean': return true;
    case 'null': return null;
    default: return buildString(schema, source);
  }
}

function buildObject(schema: Schema, source: ValueSource, root: Schema, depth: number): Record<string, unknown> {
  const properties = asSchema(schema.properties);
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : [];
  const value: Record<string, unknown> = {};
  for (const name of required) {
    value[name] = buildValue(asSchema(properties[name] ?? schema.additionalProperties), source, root, depth + 1, 0);
  }
  return value;
}

function buildArray(schema: Schema, source: ValueSource, root: Schema, depth: number): unknown[] {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(min, 1);
  const count = Math.min(Math.max(min, 1), max, 16);
  if (Array.isArray(schema.prefixItems)) {
    return schema.prefixItems.slice(0, Math.max(count, schema.prefixItems.length)).map((item, i) => buildValue(asSchema(item), source, root, depth + 1, i));
  }
  const items = asSchema(schema.items);
  return Array.from({ length: count }, (_, i) => buildValue(items, source, root, depth + 1, i));
}

function buildNumber(schema: Schema, source: ValueSource, integer: boolean): number {
  let low = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  let high = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const step = integer ? 1 : 0.5;
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + step);
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - step);
  let value = source.numberIndex < source.numbers.length ? source.numbers[source.numberIndex++]! : 1;
  value = Math.min(Math.max(value, low), high);
  if (integer) value = value >= 0 ? Math.floor(value) : Math.ceil(value);
  if (integer && value < low) value = Math.ceil(low);
  const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (multipleOf) {
    value = Math.ceil(value / multipleOf) * multipleOf;
    if (value > high) value -= multipleOf;
  }
  return value;
}

function nextWord(source: ValueSource): string {
  const word = source.words[source.wordIndex % source.words.length]!;
  source.wordIndex++;
  return word;
}

function buildString(schema: Schema, source: ValueSource): string {
  const word = nextWord(source);
  const slug = word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'sandbox';
  let value: string;
  switch (schema.format) {
    case 'date': value = '2026-01-01'; break;
    case 'date-time': value = '2026-01-01T00:00:00Z'; break;
    case 'time': value = '12:00:00Z'; break;
    case 'email': value = `${slug.replace(/[^a-z0-9-]/g, '') || 'user'}@example.com`; break;
    case 'uri': case 'url': case 'iri': value = `https://example.com/${encodeURIComponent(slug)}`; break;
    case 'uuid': value = '00000000-0000-4000-8000-000000000000'; break;
    case 'ipv4': value = '192.0.2.1'; break;
    default: value = word;
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  while ([...value].length < minLength) value += ` ${word}`;
  if ([...value].length > maxLength) value = [...value].slice(0, maxLength).join('');
  return value;
}
