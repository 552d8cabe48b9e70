/** One sample of a Prometheus text exposition. */
export interface Sample { name: string; labels: Record<string, string>; value: number }

/** Parses the text exposition format (enough for prom-client's output: no timestamps). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Samples of `name` whose labels include all of `where`. */
export function samplesOf(samples: readonly Sample[], name: string, where: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));
}

/** The one value of `name` with `where` (0 when absent; throws when ambiguous). */
export function valueOf(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  const found = samplesOf(samples, name, where);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(where)}`);
  return found[0]?.value ?? 0;
}
