import type { ProviderSpec } from '../config/types.js';
import type { ProviderImplementation } from '../providers/types.js';
import { MappingCompileError, MappingCompileErrors } from './compile-error.js';
import type { DefaultAuth } from './request.js';
import { transports, type OperationFn } from './transports/index.js';
import type { OperationMapping } from './types.js';

/** The operations (and realtime relay) a provider's YAML mappings compile to. */
export interface CompiledMappings {
  operations: Record<string, OperationFn>;
  openRealtime?: ProviderImplementation['openRealtime'];
}

/**
 * Compiles `providers.<name>.operations` once at startup. Each mapping is handed to the
 * transport it names. Mappings that cannot compile throw one MappingCompileErrors listing each
 * failed operation's first problem, with paths from `providers.<name>.operations.<operation>`,
 * so lint reports every one at its line.
 */
export function compileProviderMappings(providerName: string, spec: ProviderSpec, defaultAuth?: DefaultAuth): CompiledMappings {
  const out: CompiledMappings = { operations: {} };
  const problems: MappingCompileError[] = [];
  for (const [operation, raw] of Object.entries(spec.operations ?? {})) {
    const at = ['providers', providerName, 'operations', operation];
    const mapping = raw as unknown as OperationMapping;
    try {
      const transport = transports.get(mapping.transport);
      if (!transport) throw new MappingCompileError([...at, 'transport'], `unknown transport '${String(mapping.transport)}'`);
      const compiled = transport.compile({ providerName, operation, mapping, at, defaultAuth });
      Object.assign(out.operations, compiled.operations);
      if (compiled.openRealtime) out.openRealtime = compiled.openRealtime;
    } catch (e) {
      problems.push(e instanceof MappingCompileError ? e : new MappingCompileError(at, (e as Error).message));
    }
  }
  if (problems.length > 0) throw new MappingCompileErrors(problems);
  return out;
}

export { MappingCompileError, MappingCompileErrors } from './compile-error.js';
