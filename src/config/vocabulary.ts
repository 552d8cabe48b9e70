/**
 * The names YAML may use for behaviour implemented in TypeScript. The config layer only sees
 * this description; src/compile/registry.ts supplies the real implementations.
 */
export interface ProviderTypeInfo {
  /** Serves text routes (those with a `surface`). */
  text: boolean;
  /** Non-text operations implemented natively. */
  operations: ReadonlySet<string>;
  /** Accepts operation mappings in YAML (`providers.<name>.operations`). */
  mappedOperations: boolean;
  /** Needs an API key (sandbox does not). */
  needsKey: boolean;
  /** JSON Schema of `providers.<name>.options`. */
  optionsSchema?: Record<string, unknown>;
}

export interface Vocabulary {
  providerTypes: ReadonlyMap<string, ProviderTypeInfo>;
  handlers: ReadonlySet<string>;
  surfaces: ReadonlySet<string>;
  /** Names of the mapping transports usable in operation mappings. */
  transports: ReadonlySet<string>;
  /** Provider auth types that can authenticate a forwarded (pass-through) request. */
  credentialTypes: ReadonlySet<string>;
}
