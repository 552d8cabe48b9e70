/**
 * Reads a V8 .cpuprofile (written by `node --cpu-prof`) and names the hot spots precisely:
 * - self time per function (`file:line function`, node internals and native code included);
 * - time charged to gateway code: each busy sample is charged to the innermost frame that is
 *   the gateway's own (`dist/src/...`), so library and runtime work lands on the gateway
 *   function that asked for it.
 * Percentages are of busy time (idle samples left out). Lines are those of the compiled JS.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface CallFrame { functionName: string; url: string; lineNumber: number }
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
  const path = frame.url.startsWith('file://') ? relative(root, new URL(frame.url).pathname) : frame.url;
  return `${path}:${frame.lineNumber + 1} ${name}`;
}
