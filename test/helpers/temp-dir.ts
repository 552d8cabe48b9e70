import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/**
 * A new folder under the OS temp dir (`<prefix>XXXXXX`), removed when the test process exits:
 * for temp projects that gateways spawned by the tests read until the end of their suite, so no
 * test run leaves its projects behind in /tmp.
 */
export function makeTempDir(prefix: string): string {
  if (made.size === 0) process.once('exit', () => { for (const dir of made) rmSync(dir, { recursive: true, force: true }); });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}
