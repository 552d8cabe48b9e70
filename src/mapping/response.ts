import type { OperationCall } from '../providers/types.js';
import type { MediaValue } from './media.js';
import { BASE_VARIABLES, requestVariables, upstreamOf } from './request.js';
import type { ResponseSpec } from './types.js';
import { compileFields, compileValue, createSpecContext, type Evaluator, type Scope } from './value-spec.js';

/** Turns an upstream JSON answer into the normalized body. */
export type ResponseShaper = (upstream: unknown, call: OperationCall, extraVars?: Record<string, string | undefined>) => Promise<Record<string, unknown>>;

/** The scope of a response-side value: the upstream answer, with the client body as `$request`. */
export function responseScope(upstream: unknown, call: OperationCall, extraVars: Record<string, string | undefined> = {}, bytes?: MediaValue): Scope {
  return { root: upstream, request: call.body, vars: requestVariables(call, upstreamOf(call), extraVars), call, bytes };
}

/**
 * Compiles `response` (json and multipart transports): start from the upstream JSON when
 * `passthrough`, then write each `body` field. Without either, the upstream JSON is returned
 * as is (an OpenAI-compatible upstream already speaks the normalized shape).
 */
export function compileResponse(spec: ResponseSpec | undefined, at: ReadonlyArray<string | number>, variables: string[] = []): ResponseShaper {
  const ctx = createSpecContext([...BASE_VARIABLES, ...variables], false);
  const fields = spec?.body ? compileFields(spec.body, [...at, 'body'], ctx) : undefined;
  const passthrough = spec?.passthrough ?? !fields;
  return async (upstream, call, extraVars) => {
    const start = passthrough && upstream && typeof upstream === 'object' && !Array.isArray(upstream) ? structuredClone(upstream as Record<string, unknown>) : {};
    return fields ? fields(responseScope(upstream, call, extraVars), start) : start;
  };
}

/** Compiles an optional single value on the response side. */
export function compileResponseValue(spec: ResponseSpec['content_type'], at: ReadonlyArray<string | number>, variables: string[] = []): Evaluator | undefined {
  if (spec === undefined) return undefined;
  return compileValue(spec, at, createSpecContext([...BASE_VARIABLES, ...variables], false));
}

export { matchesWhen } from './value-spec.js';
