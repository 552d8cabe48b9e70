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
  /** The platform the type always runs on (`bedrock-converse`: bedrock), so `platform:` may be left out. */
  platform?: string;
}

/** What lint knows of a cloud platform (`providers.<name>.platform`). */
export interface PlatformInfo {
  /** Provider types it serves. */
  types: readonly string[];
  /** `auth.type`s it takes. */
  authTypes: readonly string[];
  /** Provider settings it needs (`project`, `region`). */
  requires: ReadonlyArray<'project' | 'region'>;
}

export interface Vocabulary {
  providerTypes: ReadonlyMap<string, ProviderTypeInfo>;
  /** `auth.type` names of provider credentials. */
  authTypes: ReadonlySet<string>;
  /** Cloud platforms, by `platform:` name. */
  platforms: ReadonlyMap<string, PlatformInfo>;
  handlers: ReadonlySet<string>;
  surfaces: ReadonlySet<string>;
  /** Names of the mapping transports usable in operation mappings. */
  transports: ReadonlySet<string>;
}
