/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and names the hot spots precisely:
 * - self time per function (`file:line function`, node internals and native code included);
 * - time charged to gateway code: each busy sample is charged to the innermost frame that is
 *   the gateway's own (`dist/src/...`), so library and runtime work lands on the gateway
 *   function that asked for it.
 * Percentages are of busy time (idle samples left out). A frame in a file with a source map
 * beside it (tsc's output, and the CLI bundle's chunks, scripts/build.js) is named by its
 * TypeScript source and line; others by the compiled file's line.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber?: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** One function's share of the profile. */
export interface HotSpot { where: string; ms: number; percent: number }

/** The two views of a profile. */
export interface ProfileSummary { busyMs: number; idleMs: number; self: HotSpot[]; chargedToGateway: HotSpot[] }

/** The newest .cpuprofile file in a folder, if any. */
export function findNewestProfile(dir: string): string | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return undefined;
  }
  return files.map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** Summarises a profile: top `limit` functions by self time and by time charged to gateway code. */
export function summarizeProfile(profilePath: string, root: string, limit = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const self = new Map<string, number>();
  const charged = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += dt;
      return;
    }
    busyUs += dt;
    const key = describeFrame(node.callFrame, root);
    self.set(key, (self.get(key) ?? 0) + dt);
    let owner = 'outside gateway code (node, undici, koa internals)';
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (frame.url.includes('/dist/src/')) {
        owner = describeFrame(frame, root);
        break;
      }
    }
    charged.set(owner, (charged.get(owner) ?? 0) + dt);
  });
  const top = (m: Map<string, number>): HotSpot[] => [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([where, us]) => ({ where, ms: us / 1000, percent: (100 * us) / Math.max(1, busyUs) }));
  return { busyMs: busyUs / 1000, idleMs: idleUs / 1000, self: top(self), chargedToGateway: top(charged) };
}

function describeFrame(frame: CallFrame, root: string): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  if (!frame.url.startsWith('file://')) return `${frame.url}:${frame.lineNumber + 1} ${name}`;
  const file = new URL(frame.url).pathname;
  const entry = sourceMapOf(file)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  if (entry && 'originalSource' in entry && entry.originalSource) {
    const source = entry.originalSource.startsWith('file://') ? new URL(entry.originalSource).pathname : resolve(dirname(file), entry.originalSource);
    return `${relative(root, source)}:${entry.originalLine + 1} ${name}`;
  }
  return `${relative(root, file)}:${frame.lineNumber + 1} ${name}`;
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** The source map beside a compiled file (`<file>.map`), if any. */
function sourceMapOf(file: string): SourceMap | undefined {
  if (!sourceMaps.has(file)) {
    const mapFile = `${file}.map`;
    let map: SourceMap | undefined;
    try {
      if (existsSync(mapFile)) map = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = undefined; // an unreadable map: name the compiled line
    }
    sourceMaps.set(file, map);
  }
  return sourceMaps.get(file);
}
