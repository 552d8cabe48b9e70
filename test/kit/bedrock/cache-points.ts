/**
 * Prompt-cache breakpoints as the fakes of Claude's platforms check them: where a request
 * carries them and what the provider would refuse about them. Claude's Messages format (on
 * Bedrock InvokeModel and Vertex rawPredict) marks blocks with `cache_control`
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching); Bedrock Converse puts
 * a `cachePoint` block after the prefix to cache, in `system`, `messages[].content` and
 * `toolConfig.tools`, for Claude (all three) and Amazon Nova (not tools)
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html).
 * At most 4 breakpoints a request; a TTL is `5m` or `1h`.
 */

type Json = Record<string, unknown>;

/** Where the breakpoints are (`system[0]`, `tools[1]`, `messages[0].content[2]`), and what is wrong with them. */
export interface Breakpoints { at: string[]; problems: string[] }

const MAX_BREAKPOINTS = 4;
const TTLS = new Set([undefined, '5m', '1h']);

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `cache_control` breakpoints of a Claude Messages body. */
export function claudeBreakpoints(body: Json): Breakpoints {
  const out: Breakpoints = { at: [], problems: [] };
  const visit = (block: Json, where: string) => {
    if (block.cache_control === undefined) return;
    out.at.push(where);
    const control = block.cache_control;
    if (!isObject(control) || control.type !== 'ephemeral' || !TTLS.has(control.ttl as string | undefined)) out.problems.push(`${where}.cache_control: ${JSON.stringify(control)} is not {type: ephemeral, ttl?: 5m|1h}`);
  };
  list(body.system).forEach((b, i) => visit(b, `system[${i}]`));
  list(body.tools).forEach((b, i) => visit(b, `tools[${i}]`));
  list(body.messages).forEach((m, i) => list(m.content).forEach((b, j) => visit(b, `messages[${i}].content[${j}]`)));
  if (out.at.length > MAX_BREAKPOINTS) out.problems.push(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${out.at.length}.`);
  return out;
}

/** The `cachePoint` blocks of a Converse body for `modelId`. */
export function converseCachePoints(body: Json, modelId: string): Breakpoints {
  const out: Breakpoints = { at: [], problems: [] };
  const family = /(^|[./])anthropic\./.test(modelId) ? 'claude' : /(^|[./])amazon\.nova/.test(modelId) ? 'nova' : 'other';
  const visit = (block: Json, where: string, field: 'system' | 'messages' | 'tools') => {
    if (block.cachePoint === undefined) return;
    out.at.push(where);
    const point = block.cachePoint;
    if (Object.keys(block).length !== 1) out.problems.push(`${where}: a content block is a union of exactly one member`);
    if (!isObject(point) || point.type !== 'default' || !TTLS.has(point.ttl as string | undefined)) out.problems.push(`${where}.cachePoint: ${JSON.stringify(point)} is not {type: default, ttl?: 5m|1h}`);
    if (family === 'other' || (family === 'nova' && field === 'tools')) out.problems.push(`${where}: prompt caching is not supported here for model ${modelId}`);
  };
  list(body.system).forEach((b, i) => visit(b, `system[${i}]`, 'system'));
  list((body.toolConfig as Json | undefined)?.tools).forEach((b, i) => visit(b, `tools[${i}]`, 'tools'));
  list(body.messages).forEach((m, i) => list(m.content).forEach((b, j) => visit(b, `messages[${i}].content[${j}]`, 'messages')));
  if (out.at.length > MAX_BREAKPOINTS) out.problems.push(`A request may have at most ${MAX_BREAKPOINTS} cache checkpoints. Found ${out.at.length}.`);
  return out;
}
