/**
 * A mapping that passed the schema but cannot be compiled (a bad path, template or option).
 * `path` is the data path below the mapping, so the config layer reports it at its line.
 */
export class MappingCompileError extends Error {
  constructor(readonly path: ReadonlyArray<string | number>, message: string) {
    super(message);
    this.name = 'MappingCompileError';
  }
}

/** Runs a compile step, re-throwing any plain Error as a MappingCompileError at `path`. */
export function atPath<T>(path: ReadonlyArray<string | number>, build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof MappingCompileError) throw e;
    throw new MappingCompileError(path, (e as Error).message);
  }
}

/** Every MappingCompileError of one provider (one per operation that failed). */
export class MappingCompileErrors extends Error {
  constructor(readonly errors: readonly MappingCompileError[]) {
    super(errors.map((e) => `${e.path.join('.')}: ${e.message}`).join('\n'));
    this.name = 'MappingCompileErrors';
  }
}
