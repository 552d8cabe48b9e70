/** Polls `check` until it is true (or throws after `ms`, naming `label`). */
export async function waitFor(check: () => Promise<boolean>, ms = 10_000, label = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
