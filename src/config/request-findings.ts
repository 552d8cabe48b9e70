/**
 * What a route's request validator (request-schema.ts) found wrong with a body, as the 400
 * `validation_failed` answer lists it: each finding names the field and the rule broken.
 */
import type { ErrorObject } from 'ajv';

/** One validation finding as reported in `error.details.errors`. */
export interface Finding { field: string; rule: string; message: string }

/** Turns ajv errors into findings that name the field and the rule broken. */
export function describeErrors(errs: readonly ErrorObject[]): Finding[] {
  const out: Finding[] = [];
  const anyOfPaths = new Set(errs.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const groupedRequired = new Map<string, string[]>();
  for (const e of errs) {
    const base = fieldOf(e.instancePath);
    if (e.keyword === 'required' && anyOfPaths.has(e.instancePath) && e.schemaPath.includes('anyOf')) {
      const list = groupedRequired.get(e.instancePath) ?? [];
      list.push((e.params as { missingProperty: string }).missingProperty);
      groupedRequired.set(e.instancePath, list);
      continue;
    }
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    out.push(describe(e, base));
  }
  for (const [path, fields] of groupedRequired) {
    const where = fieldOf(path);
    const names = [...new Set(fields)];
    out.unshift({ field: names.join('|'), rule: 'anyOf', message: `${where ? `${where} ` : 'body '}must include at least one of: ${names.join(', ')}` });
  }
  // A oneOf/anyOf over shapes (e.g. an image input) with no better finding.
  if (out.length === 0) {
    const e = errs[0];
    if (e) out.push({ field: fieldOf(e.instancePath) || 'body', rule: e.keyword, message: `${fieldOf(e.instancePath) || 'body'} ${e.message ?? 'is invalid'}` });
  }
  return dedupe(out);
}

function describe(e: ErrorObject, base: string): Finding {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const field = join(base, String(p.missingProperty));
      return { field, rule: 'required', message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = join(base, String(p.additionalProperty));
      return { field, rule: 'additionalProperties', message: `${field} is not an allowed field` };
    }
    case 'enum':
      return { field: base, rule: 'enum', message: `${base} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { field: base, rule: 'const', message: `${base} must be ${JSON.stringify(p.allowedValue)}` };
    case 'type':
      return { field: base || 'body', rule: 'type', message: `${base || 'body'} must be of type ${String(p.type)}` };
    default:
      return { field: base || 'body', rule: e.keyword, message: `${base || 'body'} ${e.message ?? 'is invalid'}` };
  }
}

/** `/messages/0/role` -> `messages[0].role`. */
function fieldOf(instancePath: string): string {
  return instancePath.split('/').slice(1).reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function join(base: string, field: string): string {
  return base ? `${base}.${field}` : field;
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => (seen.has(f.message) ? false : (seen.add(f.message), true)));
}
