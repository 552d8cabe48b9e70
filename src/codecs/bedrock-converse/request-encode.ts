/**
 * Internal form -> Bedrock Converse / ConverseStream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
 * `POST /model/{modelId}/converse` (or `/converse-stream`): the model id is a path label, every
 * reserved character percent-encoded as the AWS SDK does (`:` -> `%3A`, `/` in an ARN -> `%2F`).
 * Streams report usage in their `metadata` event unasked. Prompt-cache breakpoints become
 * `cachePoint` blocks where the model takes them (cache-points.ts).
 */
import type { DialectRequest, DialectTarget } from '../codec.js';
import type { Conversation, Message } from '../internal.js';
import type { JsonObject } from '../shared/json.js';
import { allowsParameter } from '../shared/parameters.js';
import { supportsSetting } from '../openai-responses/supported-params.js';
import { cachePlacement, cachePointAfter } from './cache-points.js';
import { encodeConverseMessages } from './content-encode.js';
import { encodeReasoningFields, modelFamily } from './reasoning-fields.js';

/** The model id as a path label: encodeURIComponent plus `!'()*`, as the SDK's label encoder. */
export function encodeModelLabel(modelId: string): string {
  return encodeURIComponent(modelId).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Builds the Converse request; settings the model does not list are left out. */
export function encodeConverseRequest(request: Conversation, target: DialectTarget): DialectRequest {
  const model = target.upstreamModel;
  const caching = cachePlacement(model);
  const body: JsonObject = { messages: encodeConverseMessages(request.messages, caching.messages) };
  const system = request.system.flatMap((text, i): JsonObject[] => (text === '' ? [] : [{ text }, ...cachePointAfter(request.systemCache?.[i], caching.system)]));
  if (system.length > 0) body.system = system;

  const extra: JsonObject = supportsSetting(target, 'reasoning') ? encodeReasoningFields(request.reasoning, model, request.maxOutputTokens) : {};
  // Claude rejects a changed temperature or top_k while thinking (extended-thinking compatibility).
  const thinking = extra.thinking !== undefined;
  const inference: JsonObject = {};
  if (request.maxOutputTokens !== undefined && supportsSetting(target, 'maxOutputTokens')) inference.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined && !thinking && supportsSetting(target, 'temperature')) inference.temperature = Math.min(1, Math.max(0, request.temperature));
  if (request.topP !== undefined && supportsSetting(target, 'topP')) inference.topP = thinking ? Math.max(0.95, request.topP) : request.topP;
  if (request.stop !== undefined && request.stop.length > 0 && supportsSetting(target, 'stop')) inference.stopSequences = request.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  // top_k is not an inferenceConfig field: Claude takes it as a model field.
  if (request.topK !== undefined && !thinking && modelFamily(model) === 'anthropic' && allowsParameter(target, 'top_k')) extra.top_k = request.topK;

  const toolConfig = encodeToolConfig(request, target, caching.tools);
  if (toolConfig) body.toolConfig = toolConfig;
  if (Object.keys(extra).length > 0) body.additionalModelRequestFields = extra;
  const operation = request.stream ? 'converse-stream' : 'converse';
  return { path: `/model/${encodeModelLabel(model)}/${operation}`, body };
}

/**
 * `toolConfig`: tools as `toolSpec` with their JSON Schema under `inputSchema.json`; tool_choice
 * auto `{auto:{}}`, required `{any:{}}`, a named tool `{tool:{name}}`. Converse has no "none":
 * the tools are left out then, unless the conversation already holds tool blocks (Converse
 * requires toolConfig with them), where they stay without a choice.
 */
function encodeToolConfig(request: Conversation, target: DialectTarget, cachePoints: boolean): JsonObject | undefined {
  const tools = request.tools ?? [];
  if (tools.length === 0 || !supportsSetting(target, 'tools')) return undefined;
  const choice = request.toolChoice;
  if (choice?.type === 'none' && !holdsToolBlocks(request.messages)) return undefined;
  const config: JsonObject = {
    tools: tools.flatMap((tool) => {
      const spec: JsonObject = { name: tool.name };
      if (tool.description !== undefined && tool.description !== '') spec.description = tool.description;
      spec.inputSchema = { json: Object.keys(tool.parameters).length > 0 ? { type: 'object', ...tool.parameters } : { type: 'object', properties: {} } };
      return [{ toolSpec: spec }, ...cachePointAfter(tool.cacheControl, cachePoints)];
    }),
  };
  if (choice !== undefined && choice.type !== 'none' && supportsSetting(target, 'toolChoice')) {
    config.toolChoice = choice.type === 'auto' ? { auto: {} } : choice.type === 'required' ? { any: {} } : { tool: { name: choice.name } };
  }
  return config;
}

function holdsToolBlocks(messages: readonly Message[]): boolean {
  return messages.some((m) => m.parts.some((p) => p.type === 'tool_call' || p.type === 'tool_result'));
}
