import type { SurfaceCodec } from '../../codecs/codec.js';
import type { CacheControl, Conversation } from '../../codecs/internal.js';
import type { ModelSpec } from '../../config/types.js';

const EPHEMERAL: CacheControl = { type: 'ephemeral' };
/** Characters per token of the length estimate (Claude's tokenizer runs ~3.5 on English text). */
const CHARS_PER_TOKEN = 3.5;

/**
 * The shortest prefix Anthropic caches for a model: 2048 tokens on Haiku models, 1024 on the
 * others (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#cache-limitations).
 * A shorter prefix with a breakpoint is simply not cached, so the estimate need not be exact.
 */
export function minimumCacheableTokens(upstreamModel: string): number {
  return /haiku/i.test(upstreamModel) ? 2048 : 1024;
}

/** A request with breakpoints placed by `prompt_cache: auto`, in both forms the pipeline sends. */
export interface AutoCached {
  readonly body: Record<string, unknown>;
  readonly request: Conversation;
}

/**
 * `models[].prompt_cache: auto` for an Anthropic-format target: a request whose client set no
 * breakpoint and whose cacheable prefix (tools, then system) is at least the model's minimum
 * gets one breakpoint on its last tool and one on its last system entry, so its next turn reads
 * that prefix at the cache-read price. Both the internal request (translated calls) and the
 * client's own body (same-format messages calls, sent as they came) are marked; the inputs are
 * not changed. Undefined when nothing is placed.
 */
export function placeAutoBreakpoints(body: Record<string, unknown>, request: Conversation, surface: string, upstreamModel: string): AutoCached | undefined {
  if (hasBreakpoint(request)) return undefined;
  const tools = request.tools ?? [];
  let chars = 0;
  for (const text of request.system) chars += text.length;
  for (const tool of tools) chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters).length;
  if (chars / CHARS_PER_TOKEN < minimumCacheableTokens(upstreamModel)) return undefined;
  const marked: Conversation = { ...request };
  if (tools.length > 0) marked.tools = tools.map((tool, i) => (i === tools.length - 1 ? { ...tool, cacheControl: EPHEMERAL } : tool));
  const lastSystem = lastNonEmpty(request.system);
  if (lastSystem >= 0) {
    marked.systemCache = { [lastSystem]: EPHEMERAL };
  }
  return { body: surface === 'anthropic-messages' ? markMessagesBody(body) : body, request: marked };
}

/**
 * A target's request in both forms: the body decoded by the client's surface, with the
 * breakpoints of `prompt_cache: auto` when the target's model asks for them and speaks the
 * Anthropic format.
 */
export function withAutoBreakpoints(entry: { spec: Pick<ModelSpec, 'prompt_cache'>; upstream: string }, dialect: string | undefined, surface: SurfaceCodec, body: Record<string, unknown>): AutoCached {
  const request = surface.decodeRequest(body);
  if (entry.spec.prompt_cache !== 'auto' || dialect !== 'anthropic-messages') return { body, request };
  return placeAutoBreakpoints(body, request, surface.name, entry.upstream) ?? { body, request };
}

function hasBreakpoint(request: Conversation): boolean {
  if (request.systemCache && Object.keys(request.systemCache).length > 0) return true;
  if (request.tools?.some((t) => t.cacheControl)) return true;
  return request.messages.some((m) => m.parts.some((p) => 'cacheControl' in p && p.cacheControl !== undefined));
}

function lastNonEmpty(texts: readonly string[]): number {
  for (let i = texts.length - 1; i >= 0; i--) if (texts[i] !== '') return i;
  return -1;
}

/** The same breakpoints on a messages body: the last tool, and the system prompt (as blocks). */
function markMessagesBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  const cache = { cache_control: { type: 'ephemeral' } };
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const tools = body.tools.slice();
    const last = tools[tools.length - 1];
    if (typeof last === 'object' && last !== null) tools[tools.length - 1] = { ...last, ...cache };
    out.tools = tools;
  }
  if (typeof body.system === 'string' && body.system !== '') out.system = [{ type: 'text', text: body.system, ...cache }];
  else if (Array.isArray(body.system) && body.system.length > 0) {
    const system = body.system.slice();
    const last = system[system.length - 1];
    if (typeof last === 'object' && last !== null) system[system.length - 1] = { ...last, ...cache };
    out.system = system;
  }
  return out;
}
