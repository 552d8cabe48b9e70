/** A JSON POST with a key; returns status, headers and the parsed body (or text for streams). */
export async function post(url: string, key: string | undefined, body: unknown): Promise<{ status: number; headers: Headers; json: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try { json = JSON.parse(text) as Record<string, unknown>; } catch { /* a stream or bytes */ }
  return { status: res.status, headers: res.headers, json, text };
}

/** The `data:` payloads of an SSE body (JSON parsed where possible). */
export function sseData(text: string): unknown[] {
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => {
    const d = l.slice(6);
    try { return JSON.parse(d) as unknown; } catch { return d; }
  });
}

/** The cost written in a stream's closing comment. */
export function streamCost(text: string): number | undefined {
  const m = /^: x-gateway-cost: ([0-9.]+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The error code of an error body in either envelope. */
export function errorCode(json: Record<string, unknown>): unknown {
  return (json.error as { code?: unknown } | undefined)?.code;
}

/**
 * Waits until at least `marginMs` remain in the current UTC minute, so a test that counts
 * against a per-minute window (rpm, tpm, discovery) never straddles two windows.
 */
export async function awayFromMinuteEdge(marginMs = 5000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 200));
}
