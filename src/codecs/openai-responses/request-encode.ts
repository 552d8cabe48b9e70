import type { DialectRequest, DialectTarget } from '../codec.js';
import type { Conversation, ReasoningEffort } from '../internal.js';
import { encodeResponsesInput } from './input-encode.js';
import type { JsonObject } from '../shared/json.js';
import { supportsSetting } from './supported-params.js';
import { listsCapability } from '../shared/parameter-spellings.js';
import { encodeTextFormat, encodeToolChoice, encodeTools } from './tools.js';

/**
 * Internal form -> POST {base}/responses (base like the OpenAI SDK's, ending in /v1).
 * Settings the model does not list in `target.supportedParameters` are not sent. The gateway is
 * stateless, so `store` is always false; reasoning models then get
 * `include: ["reasoning.encrypted_content"]` so their reasoning can be passed back next turn.
 * Responses streams always end with usage in response.completed, so no stream option is needed.
 */
export function encodeResponsesDialectRequest(request: Conversation, target: DialectTarget): DialectRequest {
  const body: JsonObject = { model: target.upstreamModel, input: encodeResponsesInput(request.messages) };
  if (request.system.length > 0) body.instructions = request.system.join('\n\n');
  if (request.maxOutputTokens !== undefined && supportsSetting(target, 'maxOutputTokens')) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined && supportsSetting(target, 'temperature')) body.temperature = request.temperature;
  if (request.topP !== undefined && supportsSetting(target, 'topP')) body.top_p = request.topP;
  if (request.tools !== undefined && request.tools.length > 0 && supportsSetting(target, 'tools')) {
    body.tools = encodeTools(request.tools);
    if (request.toolChoice !== undefined && supportsSetting(target, 'toolChoice')) body.tool_choice = encodeToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined && supportsSetting(target, 'parallelToolCalls')) body.parallel_tool_calls = request.parallelToolCalls;
  }
  const reasoning = supportsSetting(target, 'reasoning') ? encodeReasoning(request.reasoning) : undefined;
  if (reasoning !== undefined) body.reasoning = reasoning;
  if (request.responseFormat !== undefined && supportsSetting(target, 'responseFormat')) body.text = encodeTextFormat(request.responseFormat);
  if (request.user !== undefined && supportsSetting(target, 'user')) body.user = request.user;
  if (request.promptCacheKey !== undefined) body.prompt_cache_key = request.promptCacheKey;
  if (request.metadata !== undefined && supportsSetting(target, 'metadata')) body.metadata = encodeMetadata(request.metadata);
  body.store = false;
  // Ask reasoning models for their encrypted reasoning so a stateless follow-up turn can pass it
  // back (https://platform.openai.com/docs/guides/reasoning). A model is taken to reason when the
  // client asked for reasoning or the catalog lists `reasoning` for it: non-reasoning models reject
  // the include.
  const reasons = request.reasoning !== undefined ? reasoning !== undefined : listsCapability(target.supportedParameters, 'reasoning');
  if (reasons && request.reasoning?.effort !== 'none') body.include = ['reasoning.encrypted_content'];
  if (request.stream) body.stream = true;
  return { path: '/responses', body };
}

function encodeReasoning(reasoning: Conversation['reasoning']): JsonObject | undefined {
  if (reasoning === undefined) return undefined;
  const out: JsonObject = {};
  const effort = reasoning.effort ?? effortForBudget(reasoning.budgetTokens);
  if (effort !== undefined) out.effort = effort;
  if (reasoning.summary !== undefined) out.summary = reasoning.summary;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** OpenAI takes an effort, not a token budget: pick the nearest level. */
function effortForBudget(budget: number | undefined): ReasoningEffort | undefined {
  if (budget === undefined) return undefined;
  if (budget <= 0) return 'none';
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

/** Responses metadata is a map of at most 16 string values (keys <= 64, values <= 512 chars). */
function encodeMetadata(metadata: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata).slice(0, 16)) {
    out[key.slice(0, 64)] = (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 512);
  }
  return out;
}
