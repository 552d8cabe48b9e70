/**
 * A same-format body for an upstream without explicit prompt caching (OpenAI and compatible):
 * `cache_control` (LiteLLM's convention for Anthropic breakpoints) is taken off messages, their
 * content parts, Responses input items and tools, so such a hint is dropped rather than refused
 * upstream. The body is copied only where something is removed; most bodies have none and come
 * back as they are after one walk over their messages.
 */
export function stripCacheControl(body: Record<string, unknown>): Record<string, unknown> {
  let out = body;
  for (const field of ['messages', 'input', 'tools'] as const) {
    const list = body[field];
    if (!Array.isArray(list)) continue;
    const cleaned = stripList(list);
    if (cleaned !== list) {
      if (out === body) out = { ...body };
      out[field] = cleaned;
    }
  }
  return out;
}

function stripList(list: unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const cleaned = stripItem(item);
    if (cleaned !== item) (out ??= list.slice())[i] = cleaned;
  }
  return out ?? list;
}

function stripItem(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const record = item as Record<string, unknown>;
  let out = record;
  if ('cache_control' in record) {
    const { cache_control: _dropped, ...rest } = record;
    out = rest;
  }
  if (Array.isArray(record.content)) {
    const content = stripList(record.content);
    if (content !== record.content) {
      if (out === record) out = { ...record };
      out.content = content;
    }
  }
  return out;
}
