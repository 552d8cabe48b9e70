/** Markdown report of a benchmark run. */
import type { ProfileSummary } from './profile-top.js';
import type { LoadResult } from './load.js';

/** One measured case. */
export interface CaseResult {
  id: string;
  label: string;
  /** Which process served the load (its CPU and RSS are reported). */
  server: string;
  load: LoadResult;
  /** CPU time of the serving process per request, µs. */
  cpuUsPerRequest: number;
  /** Largest RSS of the serving process during the case, MiB. */
  peakRssMiB: number;
}

/** Everything the report prints. */
export interface BenchReport {
  environment: Record<string, string>;
  cases: CaseResult[];
  /** Peak RSS over the whole run (VmHWM), MiB, per process. */
  processPeaks: Record<string, number>;
  chunks: number;
  profile?: { file: string; summary: ProfileSummary };
}

const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

function find(report: BenchReport, id: string): CaseResult {
  const c = report.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  return c;
}

/** Gateway / bare-proxy ratios with the targets of the engine issue (>= 0.7x req/s, p99 <= 1.5x). */
export function computeRatios(report: BenchReport): Array<{ mode: string; rps: number; p99: number; cpu: number; rpsOk: boolean; p99Ok: boolean }> {
  return ['plain', 'stream'].map((mode) => {
    const gwCase = find(report, `gateway-${mode}`);
    const bareCase = find(report, `bare-${mode}`);
    const rps = gwCase.load.reqPerSec / bareCase.load.reqPerSec;
    const p99 = gwCase.load.p99 / Math.max(bareCase.load.p99, 1);
    const cpu = gwCase.cpuUsPerRequest / Math.max(1, bareCase.cpuUsPerRequest);
    return { mode, rps, p99, cpu, rpsOk: rps >= 0.7, p99Ok: p99 <= 1.5 };
  });
}

/** Renders the whole report as markdown. */
export function renderReport(report: BenchReport): string {
  const lines: string[] = ['# Benchmark results', ''];
  for (const [k, v] of Object.entries(report.environment)) lines.push(`- ${k}: ${v}`);
  lines.push('', '## Throughput and latency', '');
  lines.push('| case | req/s | p50 ms | p99 ms | server CPU µs/req | server peak RSS MiB | non-2xx / errors / timeouts |');
  lines.push('|---|---:|---:|---:|---:|---:|---|');
  for (const c of report.cases) {
    const l = c.load;
    lines.push(`| ${c.label} | ${fixed(l.reqPerSec)} | ${fixed(l.p50, 1)} | ${fixed(l.p99, 1)} | ${fixed(c.cpuUsPerRequest)} | ${fixed(c.peakRssMiB, 1)} | ${l.non2xx} / ${l.errors} / ${l.timeouts} |`);
  }
  lines.push('', '## Gateway vs bare undici proxy (target: req/s >= 0.7x, p99 <= 1.5x)', '');
  lines.push('| mode | req/s ratio | p99 ratio | server CPU per request ratio | verdict |', '|---|---:|---:|---:|---|');
  for (const r of computeRatios(report)) {
    lines.push(`| ${r.mode} | ${fixed(r.rps, 2)}x | ${fixed(r.p99, 2)}x | ${fixed(r.cpu, 2)}x | ${r.rpsOk && r.p99Ok ? 'meets target' : `MISSES target (${[!r.rpsOk ? 'req/s' : '', !r.p99Ok ? 'p99' : ''].filter(Boolean).join(', ')})`} |`);
  }
  const pt = { plain: find(report, 'gateway-plain'), stream: find(report, 'gateway-stream') };
  const tr = { plain: find(report, 'translated-plain'), stream: find(report, 'translated-stream') };
  const perChunk = (c: { plain: CaseResult; stream: CaseResult }) => (c.stream.cpuUsPerRequest - c.plain.cpuUsPerRequest) / report.chunks;
  lines.push('', `## Translation overhead (chat client -> anthropic-messages upstream vs same-format passthrough; ${report.chunks} chunks per stream)`, '');
  lines.push('| measure | passthrough | translated | overhead |', '|---|---:|---:|---:|');
  lines.push(`| gateway CPU per plain request, µs | ${fixed(pt.plain.cpuUsPerRequest)} | ${fixed(tr.plain.cpuUsPerRequest)} | ${fixed(tr.plain.cpuUsPerRequest - pt.plain.cpuUsPerRequest)} |`);
  lines.push(`| gateway CPU per streamed request, µs | ${fixed(pt.stream.cpuUsPerRequest)} | ${fixed(tr.stream.cpuUsPerRequest)} | ${fixed(tr.stream.cpuUsPerRequest - pt.stream.cpuUsPerRequest)} |`);
  lines.push(`| gateway CPU per chunk, µs ((stream - plain) / ${report.chunks}) | ${fixed(perChunk(pt), 1)} | ${fixed(perChunk(tr), 1)} | ${fixed(perChunk(tr) - perChunk(pt), 1)} |`);
  lines.push(`| req/s plain | ${fixed(pt.plain.load.reqPerSec)} | ${fixed(tr.plain.load.reqPerSec)} | ${fixed(tr.plain.load.reqPerSec / pt.plain.load.reqPerSec, 2)}x |`);
  lines.push(`| req/s streamed | ${fixed(pt.stream.load.reqPerSec)} | ${fixed(tr.stream.load.reqPerSec)} | ${fixed(tr.stream.load.reqPerSec / pt.stream.load.reqPerSec, 2)}x |`);
  lines.push(`| p50 / p99 ms plain | ${fixed(pt.plain.load.p50, 1)} / ${fixed(pt.plain.load.p99, 1)} | ${fixed(tr.plain.load.p50, 1)} / ${fixed(tr.plain.load.p99, 1)} | |`);
  lines.push(`| p50 / p99 ms streamed | ${fixed(pt.stream.load.p50, 1)} / ${fixed(pt.stream.load.p99, 1)} | ${fixed(tr.stream.load.p50, 1)} / ${fixed(tr.stream.load.p99, 1)} | |`);
  lines.push('', '## Peak RSS per process over the whole run (VmHWM)', '', '| process | peak RSS MiB |', '|---|---:|');
  for (const [name, mib] of Object.entries(report.processPeaks)) lines.push(`| ${name} | ${fixed(mib, 1)} |`);
  if (report.profile) {
    const { file, summary } = report.profile;
    lines.push('', `## Gateway CPU profile (${file}; busy ${fixed(summary.busyMs)} ms, idle ${fixed(summary.idleMs)} ms; compiled JS lines)`, '');
    lines.push('Time charged to the innermost gateway function on the stack (library work lands on its caller):', '');
    lines.push('| % busy | ms | gateway function |', '|---:|---:|---|');
    for (const s of summary.chargedToGateway) lines.push(`| ${fixed(s.percent, 1)} | ${fixed(s.ms)} | ${s.where.replace(/\|/g, '\\|')} |`);
    lines.push('', 'Self time per function:', '', '| % busy | ms | function |', '|---:|---:|---|');
    for (const s of summary.self) lines.push(`| ${fixed(s.percent, 1)} | ${fixed(s.ms)} | ${s.where.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}
