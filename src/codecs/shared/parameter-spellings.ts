/**
 * One capability, many spellings. Each client surface names the same knob its own way (chat
 * `response_format`, responses `text.format`, messages `output_config.format`; `max_tokens`,
 * `max_completion_tokens`, `max_output_tokens` ...). The catalog's `parameters` list may use any of
 * them, so a model that lists one spelling accepts the capability under every spelling.
 *
 * This table is the only place that knows which names belong together. The parameter filter
 * (calls/resolve-model.ts), discovery's `?supported_parameters=` and every dialect's encoder
 * (shared/parameters.ts) read it, so a field is never dropped because the target lists it under
 * another name.
 */

/** Canonical capability name -> every spelling clients and catalogs use for it. */
export const PARAMETER_SPELLINGS = {
  temperature: ['temperature'],
  top_p: ['top_p'],
  top_k: ['top_k'],
  max_output_tokens: ['max_output_tokens', 'max_tokens', 'max_completion_tokens'],
  stop: ['stop', 'stop_sequences'],
  tools: ['tools', 'functions'],
  tool_choice: ['tool_choice', 'function_call'],
  parallel_tool_calls: ['parallel_tool_calls'],
  reasoning: ['reasoning', 'reasoning_effort', 'thinking', 'include_reasoning'],
  response_format: ['response_format', 'text', 'output_format', 'output_config', 'structured_outputs'],
  user: ['user', 'safety_identifier'],
  metadata: ['metadata'],
  seed: ['seed'],
  service_tier: ['service_tier'],
} as const satisfies Record<string, readonly string[]>;

/** A canonical capability name. */
export type Capability = keyof typeof PARAMETER_SPELLINGS;

const CAPABILITY_OF: ReadonlyMap<string, Capability> = new Map(
  (Object.entries(PARAMETER_SPELLINGS) as Array<[Capability, readonly string[]]>).flatMap(([cap, names]) => names.map((n) => [n, cap] as const)),
);

/** The capability a field name spells, or undefined for names outside the table. */
export function findCapability(name: string): Capability | undefined {
  return CAPABILITY_OF.get(name);
}

/** Every spelling of the capability `name` belongs to (just `[name]` when it is in no group). */
export function listSpellings(name: string): readonly string[] {
  const cap = CAPABILITY_OF.get(name);
  return cap === undefined ? [name] : PARAMETER_SPELLINGS[cap];
}

/** True when `listed` (a catalog `parameters` set) names the capability of `name` in any spelling. */
export function listsCapability(listed: ReadonlySet<string>, name: string): boolean {
  if (listed.has(name)) return true;
  return listSpellings(name).some((spelling) => listed.has(spelling));
}

/**
 * A catalog `parameters` list with every spelling of each capability it names, in list order
 * (each name, then its other spellings), without repeats: what a model card shows as
 * `supported_parameters`, so `GET /v1/models?supported_parameters=X` can match the card exactly
 * and still find a model under any spelling the gateway accepts.
 */
export function withEverySpelling(names: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const name of names) {
    out.add(name);
    for (const spelling of listSpellings(name)) out.add(spelling);
  }
  return [...out];
}
