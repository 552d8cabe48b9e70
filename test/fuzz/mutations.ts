/**
 * The mutations the fuzzer applies, driven by a seeded PRNG so every run sends the same
 * requests (FUZZ_SEED picks another sequence). Each case says whether the gateway MUST refuse
 * it (a 4xx) or only must not fail (no 5xx: a mutated body may still be a valid request).
 */
import { fieldPaths, jsonTypeOf, sampleValue, setAt, type SchemaNode } from './schema-bodies.js';

/** One request the fuzzer sends. */
export interface FuzzCase {
  /** What was mutated, for failure messages. */
  name: string;
  contentType?: string;
  body: Buffer;
  /** True when the only right answer is a 4xx envelope. */
  mustRefuse: boolean;
}

/** mulberry32: a tiny, well-known seeded PRNG (deterministic across platforms). */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON nested `depth` levels deep (objects and arrays alternating). */
export function deepJson(depth: number): string {
  return '{"a":['.repeat(depth) + '1' + ']}'.repeat(depth);
}

const DEEP = 5000; // far beyond the gateway's limit (256), deep enough to overflow a recursive walk

/** Values of every JSON type and a few nasty ones, each with how to write it into a body. */
function wrongValues(random: () => number): Array<{ name: string; value?: unknown; raw?: string }> {
  const huge = 'x'.repeat(64 * 1024 + Math.floor(random() * 1024));
  return [
    { name: 'null', value: null },
    { name: 'true', value: true },
    { name: 'integer', value: Math.floor(random() * 1e9) - 5e8 },
    { name: 'float', value: random() * 1e308 },
    { name: 'negative', value: -1 },
    { name: 'string', value: 'fuzz' },
    { name: 'empty string', value: '' },
    { name: 'huge string', value: huge },
    { name: 'lone surrogate', raw: '"\\ud800\\u0000\\udfff"' },
    { name: 'empty array', value: [] },
    { name: 'array of junk', value: [null, 1, 'a', {}, []] },
    { name: 'empty object', value: {} },
    { name: 'object of junk', value: { type: 7, role: null, content: [{}], text: 1 } },
    { name: 'deep nesting', raw: deepJson(DEEP) },
  ];
}

/** Replaces the JSON text of a marker string in the serialized body by raw JSON text. */
function withRaw(body: Record<string, unknown>, path: Array<string | number>, raw: string): string | undefined {
  const marker = '__fuzz_raw_marker__';
  const mutated = setAt(body, path, marker);
  return mutated ? JSON.stringify(mutated).replace(`"${marker}"`, raw) : undefined;
}

/** Field-level mutations of one route's base body: wrong types, huge strings, deep nesting. */
export function fieldCases(schema: SchemaNode, base: Record<string, unknown>, random: () => number): FuzzCase[] {
  const out: FuzzCase[] = [];
  for (const field of fieldPaths(schema)) {
    for (const v of wrongValues(random)) {
      const text = v.raw !== undefined ? withRaw(base, field.path, v.raw) : (() => {
        const m = setAt(base, field.path, v.value);
        return m ? JSON.stringify(m) : undefined;
      })();
      if (text === undefined) continue;
      const valueType = v.raw !== undefined ? (v.name === 'deep nesting' ? 'object' : 'string') : jsonTypeOf(v.value);
      const wrongType = field.types !== undefined && !field.types.includes(valueType);
      out.push({
        name: `${field.path.join('.')} = ${v.name}`,
        contentType: 'application/json',
        body: Buffer.from(text),
        mustRefuse: v.name === 'deep nesting' || wrongType,
      });
    }
  }
  return out;
}

/** Whole-body mutations: encodings, content types, truncation, non-object JSON. */
export function bodyCases(base: Record<string, unknown>, acceptedTypes: readonly string[], random: () => number): FuzzCase[] {
  const text = JSON.stringify(base);
  const bytes = Buffer.from(text);
  const cut = 1 + Math.floor(random() * (text.length - 2));
  const badUtf8 = Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3]), bytes]);
  const inString = text.indexOf('"', 1);
  const badUtf8InString = Buffer.concat([bytes.subarray(0, inString + 1), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80]), bytes.subarray(inString + 1)]);
  const cases: FuzzCase[] = [
    { name: 'empty body', contentType: 'application/json', body: Buffer.alloc(0), mustRefuse: hasRequired(base) },
    { name: `truncated JSON (at ${cut})`, contentType: 'application/json', body: bytes.subarray(0, cut), mustRefuse: true },
    { name: 'bad UTF-8 bytes before the body', contentType: 'application/json', body: badUtf8, mustRefuse: true },
    { name: 'bad UTF-8 bytes inside a string', contentType: 'application/json', body: badUtf8InString, mustRefuse: false },
    { name: 'unknown charset', contentType: 'application/json; charset=bogus', body: bytes, mustRefuse: false },
    { name: 'UTF-16 body', contentType: 'application/json; charset=utf-16', body: Buffer.from(`\ufeff${text}`, 'utf16le'), mustRefuse: true },
    { name: 'UTF-8 BOM', contentType: 'application/json', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), mustRefuse: false },
    { name: 'JSON array', contentType: 'application/json', body: Buffer.from(`[${text}]`), mustRefuse: true },
    { name: 'JSON string', contentType: 'application/json', body: Buffer.from('"hello"'), mustRefuse: true },
    { name: 'JSON number', contentType: 'application/json', body: Buffer.from('42'), mustRefuse: true },
    { name: 'JSON null', contentType: 'application/json', body: Buffer.from('null'), mustRefuse: true },
    { name: 'not JSON at all', contentType: 'application/json', body: Buffer.from('hello world'), mustRefuse: true },
    { name: 'deeply nested body', contentType: 'application/json', body: Buffer.from(deepJson(5000)), mustRefuse: true },
    { name: 'deeply nested arrays', contentType: 'application/json', body: Buffer.from(`{"model":${'['.repeat(20000)}${']'.repeat(20000)}}`), mustRefuse: true },
    { name: 'duplicate keys', contentType: 'application/json', body: Buffer.from(text.replace(/^\{/, '{"model":7,')), mustRefuse: false },
    { name: 'many keys', contentType: 'application/json', body: Buffer.from(JSON.stringify({ ...base, ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) })), mustRefuse: false },
    { name: 'plain text body', contentType: 'text/plain', body: Buffer.from('Say hello.'), mustRefuse: true },
    { name: 'JSON sent as text/plain', contentType: 'text/plain; charset=utf-8', body: bytes, mustRefuse: true },
    { name: 'XML', contentType: 'application/xml', body: Buffer.from('<request><model>x</model></request>'), mustRefuse: true },
    { name: 'form-encoded', contentType: 'application/x-www-form-urlencoded', body: Buffer.from('model=x&input=hello'), mustRefuse: true },
    { name: 'octet-stream', contentType: 'application/octet-stream', body: Buffer.from([0, 1, 2, 255]), mustRefuse: true },
    { name: 'garbage content type', contentType: ';;==garbage', body: bytes, mustRefuse: true },
    { name: 'no content type, plain text', body: Buffer.from('hello world'), mustRefuse: true },
  ];
  // A multipart body on a route that takes multipart is a different request, not a fuzz of this one.
  if (!acceptedTypes.includes('multipart/form-data')) {
    cases.push({ name: 'multipart garbage', contentType: 'multipart/form-data; boundary=xyz', body: Buffer.from('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--xyz--\r\n'), mustRefuse: true });
  } else {
    cases.push({ name: 'multipart without boundary', contentType: 'multipart/form-data', body: Buffer.from('garbage'), mustRefuse: true });
    cases.push({ name: 'multipart truncated', contentType: 'multipart/form-data; boundary=xyz', body: Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF'), mustRefuse: true });
  }
  return cases;
}

function hasRequired(base: Record<string, unknown>): boolean {
  return Object.keys(base).length > 0;
}

/** The base body of a route: the schema's sample with the route's model. */
export function baseBody(schema: SchemaNode, model: string | undefined): Record<string, unknown> {
  const sample = sampleValue(schema) as Record<string, unknown>;
  return model !== undefined && schema.properties?.model ? { ...sample, model } : sample;
}
