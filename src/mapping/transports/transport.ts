import type { OperationCall, OperationResult, ProviderImplementation } from '../../providers/types.js';
import type { DefaultAuth } from '../request.js';
import type { OperationMapping } from '../types.js';

/** A provider operation as the engine runs it. */
export type OperationFn = (call: OperationCall) => Promise<OperationResult>;

/** What a transport is given to compile one mapping. */
export interface TransportInput {
  providerName: string;
  operation: string;
  mapping: OperationMapping;
  /** Data path of the mapping in gateway.yaml (for compile errors). */
  at: ReadonlyArray<string | number>;
  /** The provider type's own auth headers, when it has a dialect. */
  defaultAuth?: DefaultAuth;
}

/** What a compiled mapping adds to its provider. */
export interface TransportOutput {
  /** Operations by name (an async job also adds `<operation>.poll`). */
  operations: Record<string, OperationFn>;
  openRealtime?: ProviderImplementation['openRealtime'];
}

/** A named transport: YAML names it, TypeScript implements it once. */
export interface Transport {
  readonly name: string;
  compile(input: TransportInput): TransportOutput;
}
