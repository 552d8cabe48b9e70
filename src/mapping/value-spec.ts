import { errors } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { countTokens } from '../providers/sandbox/token-estimate.js';
import { atPath, MappingCompileError } from './compile-error.js';
import { loadMedia, MediaValue, type MediaSource } from './media.js';
import { compilePath, isPresent, readPath, writePath, type CompiledPath } from './paths.js';
import { compileTemplate, isTemplate, type CompiledTemplate, type TemplateScope } from './template.js';
import type { SpecObject, ValueSpec } from './types.js';

/** What a value is evaluated against. */
export interface Scope {
  /** Default root of paths without `$`: the client body (requests) or the upstream JSON (responses). */
  root: unknown;
  /** The client body (`$request`). */
  request: Record<string, unknown>;
  /** Template variables: `model`, `upstream_model`, and transport ones such as `id`. */
  vars: Readonly<Record<string, string | undefined>>;
  item?: unknown;
  index?: number;
  bytes?: MediaValue;
  call: OperationCall;
}

/** A compiled value: evaluates to the value, or undefined when absent. */
export type Evaluator = (scope: Scope) => Promise<unknown>;

/** Compile-time context shared by every value of one mapping section. */
export interface SpecContext {
  /** Names templates resolve as variables rather than paths. */
  variables: ReadonlySet<string>;
  /** Collects the top-level client fields read (so passthrough leaves them out). */
  fields: Set<string>;
  /** Whether plain paths read the client body (request side) or the upstream answer. */
  rootIsRequest: boolean;
  /** How errors name `$item` (e.g. `media[]`), inside `each` / `object`. */
  itemLabel?: string;
}

const SPEC_KEYS = new Set(['when', 'from', 'first', 'collect', 'const', 'template', 'default', 'required', 'refuse', 'where', 'at', 'sort', 'load', 'filename', 'map', 'unmapped', 'scale', 'as', 'each', 'object']);

/** Reads a compiled path in a scope. */
export function readScope(scope: Scope, path: CompiledPath): unknown {
  switch (path.root) {
    case 'item': return readPath(scope.item, path.segments);
    case 'index': return path.segments.length === 0 ? scope.index : undefined;
    case 'request': return readPath(scope.request, path.segments);
    case 'bytes': return readPath(scope.bytes, path.segments);
    default: return readPath(scope.root, path.segments);
  }
}

/** A template scope view of a value scope. */
export function templateScope(scope: Scope): TemplateScope {
  return { vars: scope.vars, read: (path) => readScope(scope, path) };
}

/**
 * Compiles one value spec (see types.ts) at a data path (for error locations). Everything that
 * can be prepared (paths, templates, maps) is prepared here, once.
 */
export function compileValue(spec: ValueSpec, at: ReadonlyArray<string | number>, ctx: SpecContext): Evaluator {
  if (typeof spec === 'string' && isTemplate(spec)) {
    const template = atPath(at, () => compileTemplate(spec, ctx.variables));
    noteTemplate(template, ctx);
    return async (scope) => template.render(templateScope(scope));
  }
  if (spec === null || typeof spec !== 'object') return async () => spec;
  if (Array.isArray(spec)) throw new MappingCompileError(at, 'a value is a scalar, a template string or a spec object; write constant arrays as {const: [...]}');
  return compileSpecObject(spec, at, ctx);
}

/** Compiles a map of target path -> value into a builder of one object. */
export function compileFields(fields: Record<string, ValueSpec>, at: ReadonlyArray<string | number>, ctx: SpecContext): (scope: Scope, into?: Record<string, unknown>) => Promise<Record<string, unknown>> {
  const entries = Object.entries(fields).map(([target, spec]) => {
    const path = target.split('.');
    if (path.some((p) => p === '')) throw new MappingCompileError([...at, target], `bad target path '${target}'`);
    return { path, evaluate: compileValue(spec, [...at, target], ctx) };
  });
  return async (scope, into = {}) => {
    for (const { path, evaluate } of entries) writePath(into, path, await evaluate(scope));
    return into;
  };
}

function noteTemplate(template: CompiledTemplate, ctx: SpecContext): void {
  if (ctx.rootIsRequest) for (const f of template.fields) ctx.fields.add(f);
}

function notePath(path: CompiledPath, ctx: SpecContext): void {
  const head = path.segments[0];
  if (head?.kind !== 'key') return;
  if (path.root === 'request' || (!path.root && ctx.rootIsRequest)) ctx.fields.add(head.key);
}

function compileSpecObject(spec: SpecObject, at: ReadonlyArray<string | number>, ctx: SpecContext): Evaluator {
  for (const key of Object.keys(spec)) if (!SPEC_KEYS.has(key)) throw new MappingCompileError([...at, key], `unknown spec key '${key}'`);
  const label = labelOf(spec, at, ctx);
  const source = compileSource(spec, at, ctx, label);
  const steps = compileSteps(spec, at, ctx, label);
  const object = spec.object ? compileFields(spec.object, [...at, 'object'], source ? { ...ctx, itemLabel: label } : ctx) : undefined;
  const hasSource = source !== undefined;
  const when = spec.when;
  return async (scope) => {
    if (when && !matchesWhen(when, scope.request)) return undefined;
    let value = hasSource ? await source(scope) : undefined;
    if (!isPresent(value) && spec.default !== undefined) value = spec.default;
    if (!isPresent(value)) {
      if (spec.required) throw errors.invalidRequest(typeof spec.required === 'string' ? spec.required : `'${label}' is required by model '${scope.call.model.id}'.`, 'missing_field', { field: label });
      if (hasSource || !object) return undefined;
      const built = await object(scope);
      return Object.keys(built).length > 0 ? built : undefined;
    }
    if (spec.refuse !== undefined) throw errors.invalidRequest(`'${label}' is not supported by model '${scope.call.model.id}': ${spec.refuse}`, 'unsupported_parameter', { field: label, model: scope.call.model.id });
    for (const step of steps) {
      value = await step(value, scope);
      if (!isPresent(value)) return undefined;
    }
    if (object) {
      const built = await object({ ...scope, item: value });
      return Object.keys(built).length > 0 ? built : undefined;
    }
    return value;
  };
}

/** How a 400 names the client field behind a value (`dimensions`, `media[].type`). */
function labelOf(spec: SpecObject, at: ReadonlyArray<string | number>, ctx: SpecContext): string {
  const from = Array.isArray(spec.from) ? spec.from[0] : spec.from;
  if (typeof from === 'string' && from.startsWith('$item') && ctx.itemLabel) return `${ctx.itemLabel}${from.slice('$item'.length)}`;
  if (typeof from === 'string' && !from.startsWith('$')) return from;
  if (typeof from === 'string' && from.startsWith('$request.')) return from.slice('$request.'.length);
  return String(at[at.length - 1] ?? 'value');
}

function compileSource(spec: SpecObject, at: ReadonlyArray<string | number>, ctx: SpecContext, label: string): Evaluator | undefined {
  const given = ['from', 'first', 'collect', 'const', 'template'].filter((k) => (spec as Record<string, unknown>)[k] !== undefined);
  if (given.length > 1) throw new MappingCompileError(at, `a spec has one source; found ${given.join(' and ')}`);
  if (spec.from !== undefined) {
    const list = Array.isArray(spec.from) ? spec.from : [spec.from];
    const paths = list.map((p, i) => atPath([...at, 'from', ...(Array.isArray(spec.from) ? [i] : [])], () => compilePath(p)));
    for (const p of paths) notePath(p, ctx);
    if (paths.length === 1) return async (scope) => readScope(scope, paths[0]!);
    return async (scope) => {
      const present = paths.map((p) => ({ p, v: readScope(scope, p) })).filter((x) => isPresent(x.v));
      const distinct = new Set(present.map((x) => JSON.stringify(x.v)));
      if (distinct.size > 1) {
        const names = present.map((x) => x.p.text.replace(/^\$request\./, ''));
        throw errors.invalidRequest(`${names.join(', ')} disagree; send one of them (they mean the same for '${label}').`, 'conflicting_fields', { fields: names });
      }
      return present[0]?.v;
    };
  }
  if (spec.first !== undefined) {
    const options = spec.first.map((s, i) => compileValue(s, [...at, 'first', i], ctx));
    return async (scope) => {
      for (const option of options) {
        const v = await option(scope);
        if (isPresent(v)) return v;
      }
      return undefined;
    };
  }
  if (spec.collect !== undefined) {
    const parts = spec.collect.map((s, i) => compileValue(s, [...at, 'collect', i], ctx));
    return async (scope) => {
      const out: unknown[] = [];
      for (const part of parts) {
        const v = await part(scope);
        if (Array.isArray(v)) out.push(...v.filter(isPresent));
        else if (isPresent(v)) out.push(v);
      }
      return out.length > 0 ? out : undefined;
    };
  }
  if (spec.const !== undefined) {
    const value = spec.const;
    return async () => structuredClone(value);
  }
  if (spec.template !== undefined) {
    const template = atPath([...at, 'template'], () => compileTemplate(spec.template!, ctx.variables));
    noteTemplate(template, ctx);
    return async (scope) => template.render(templateScope(scope));
  }
  return undefined;
}

type Step = (value: unknown, scope: Scope) => Promise<unknown>;

function compileSteps(spec: SpecObject, at: ReadonlyArray<string | number>, ctx: SpecContext, label: string): Step[] {
  const steps: Step[] = [];
  if (spec.where !== undefined) {
    const path = atPath([...at, 'where'], () => compilePath(spec.where!));
    steps.push(async (v) => (Array.isArray(v) ? v.filter((item) => isPresent(readPath(item, path.segments))) : v));
  }
  if (spec.at !== undefined) {
    const path = atPath([...at, 'at'], () => compilePath(spec.at!));
    notePath(path, ctx);
    steps.push(async (v, scope) => {
      const index = readScope(scope, path);
      return Array.isArray(v) && typeof index === 'number' && Number.isInteger(index) && index >= 0 ? v[index] : undefined;
    });
  }
  if (spec.sort !== undefined) {
    const descending = spec.sort.startsWith('-');
    const path = atPath([...at, 'sort'], () => compilePath(spec.sort!.replace(/^[-+]/, '')));
    steps.push(async (v) => {
      if (!Array.isArray(v)) return v;
      const key = (item: unknown) => readPath(item, path.segments) as number | string;
      // A stable sort keeps the upstream's order among equal keys.
      return [...v].sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        const cmp = ka < kb ? -1 : ka > kb ? 1 : 0;
        return descending ? -cmp : cmp;
      });
    });
  }
  if (spec.load !== undefined) {
    const source: MediaSource = spec.load;
    const filename = spec.filename !== undefined ? atPath([...at, 'filename'], () => compileTemplate(spec.filename!, ctx.variables)) : undefined;
    if (filename) noteTemplate(filename, ctx);
    steps.push(async (v, scope) => {
      const one = async (item: unknown, i?: number): Promise<MediaValue> => {
        const media = await loadMedia(item, source, i === undefined ? label : `${label}[${i}]`, scope.call);
        const name = filename?.render(templateScope({ ...scope, item: media }));
        return name ? new MediaValue(media.bytes, media.contentType, name) : media;
      };
      return Array.isArray(v) ? Promise.all(v.map((item, i) => one(item, i))) : one(v);
    });
  }
  if (spec.map !== undefined) {
    const table = new Map(Object.entries(spec.map));
    const unmapped = spec.unmapped ?? 'refuse';
    const allowed = [...table.keys()].join(', ');
    const mapOne = (v: unknown, scope: Scope): unknown => {
      const key = typeof v === 'object' ? JSON.stringify(v) : String(v);
      if (table.has(key)) return table.get(key);
      if (unmapped === 'keep') return v;
      if (unmapped === 'drop') return undefined;
      throw errors.invalidRequest(`Model '${scope.call.model.id}' does not support ${label} '${key}'; supported: ${allowed}.`, 'unsupported_value', { field: label, value: v, allowed: [...table.keys()] });
    };
    steps.push(async (v, scope) => (Array.isArray(v) ? v.map((item) => mapOne(item, scope)).filter(isPresent) : mapOne(v, scope)));
  }
  if (spec.scale !== undefined) {
    const factor = spec.scale;
    steps.push(async (v) => (typeof v === 'number' ? v * factor : v));
  }
  if (spec.as !== undefined) steps.push(compileConversion(spec.as, at));
  if (spec.each !== undefined) {
    const each = compileValue(spec.each, [...at, 'each'], { ...ctx, itemLabel: `${label}[]` });
    steps.push(async (v, scope) => {
      const items = Array.isArray(v) ? v : [v];
      const out: unknown[] = [];
      for (let i = 0; i < items.length; i++) {
        const mapped = await each({ ...scope, item: items[i], index: i });
        if (isPresent(mapped)) out.push(mapped);
      }
      return out;
    });
  }
  return steps;
}

function compileConversion(as: NonNullable<SpecObject['as']>, at: ReadonlyArray<string | number>): Step {
  switch (as) {
    case 'array': return async (v) => (Array.isArray(v) ? v : [v]);
    case 'string': return async (v) => (typeof v === 'object' ? JSON.stringify(v) : String(v));
    case 'number': return async (v) => toNumber(v);
    case 'integer': return async (v) => { const n = toNumber(v); return n === undefined ? undefined : Math.round(n); };
    case 'boolean': return async (v) => v === true || v === 'true' || v === 1;
    case 'json': return async (v) => JSON.stringify(v);
    case 'first': return async (v) => (Array.isArray(v) ? v[0] : v !== null && typeof v === 'object' && !(v instanceof MediaValue) ? Object.values(v)[0] : v);
    case 'float32_base64': return async (v) => {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) return v;
      const bytes = Buffer.alloc(v.length * 4);
      (v as number[]).forEach((x, i) => bytes.writeFloatLE(x, i * 4));
      return bytes.toString('base64');
    };
    case 'token_count': return async (v) => {
      // An estimate for upstreams that report no usage (the sandbox's deterministic counter).
      const texts = Array.isArray(v) ? v : [v];
      return texts.reduce<number>((n, t) => n + (typeof t === 'string' ? countTokens(t) : Array.isArray(t) ? t.length : 1), 0);
    };
    default: throw new MappingCompileError([...at, 'as'], `unknown conversion '${String(as)}'`);
  }
}

function toNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A fresh spec context for one section. */
export function createSpecContext(variables: Iterable<string>, rootIsRequest: boolean): SpecContext {
  return { variables: new Set(variables), fields: new Set(), rootIsRequest };
}

/** True when every condition (client path -> value or list of values; null = absent) holds. */
export function matchesWhen(when: Record<string, unknown> | undefined, body: Record<string, unknown>): boolean {
  if (!when) return true;
  return Object.entries(when).every(([field, expected]) => {
    const actual = field.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), body);
    const options = Array.isArray(expected) ? expected : [expected];
    return options.some((o) => (o === null ? !isPresent(actual) : o === actual || String(o) === String(actual)));
  });
}

export { writePath };
