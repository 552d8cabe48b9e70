/** A problem found in a config file. The only way any config stage reports a problem. */
export interface Diagnostic {
  file: string;
  /** 1-based line and column; 1:1 when the problem has no better place. */
  line: number;
  col: number;
  /** Stable code, e.g. `E_UNKNOWN_PROVIDER` (README lists them). */
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

/** Renders `file:line:col code message` (the lint text format). */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
