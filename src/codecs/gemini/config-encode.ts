import type { DialectTarget } from '../codec.js';
import type { Conversation, ReasoningEffort, ToolChoice, ToolDefinition } from '../internal.js';
import type { JsonObject } from '../shared/json.js';
import { supportsSetting } from '../openai-responses/supported-params.js';
import { isGemini3OrLater } from './model-version.js';

/** Gemini 3 `thinkingLevel` per internal effort (MINIMAL exists on Flash; thinking cannot be fully off). */
const LEVEL_BY_EFFORT: Record<ReasoningEffort, string> = {
  none: 'MINIMAL', minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH',
};

/** Gemini 2.x `thinkingBudget` per effort; 24576 is the largest budget every 2.5 model accepts. */
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = {
  none: 0, minimal: 512, low: 2048, medium: 8192, high: 24576, xhigh: 24576, max: 24576,
};

/**
 * `generationConfig` (https://ai.google.dev/api/generate-content#generationconfig): sampling,
 * length, stop sequences, structured output (responseMimeType + responseJsonSchema) and thinking.
 * Settings the model does not list are left out. Undefined when nothing is set.
 */
export function encodeGenerationConfig(request: Conversation, target: DialectTarget): JsonObject | undefined {
  const config: JsonObject = {};
  if (request.temperature !== undefined && supportsSetting(target, 'temperature')) config.temperature = request.temperature;
  if (request.topP !== undefined && supportsSetting(target, 'topP')) config.topP = request.topP;
  if (request.topK !== undefined && supportsSetting(target, 'topK')) config.topK = request.topK;
  if (request.maxOutputTokens !== undefined && supportsSetting(target, 'maxOutputTokens')) config.maxOutputTokens = request.maxOutputTokens;
  if (request.stop !== undefined && request.stop.length > 0 && supportsSetting(target, 'stop')) config.stopSequences = request.stop;
  const format = request.responseFormat;
  if (format !== undefined && format.type !== 'text' && supportsSetting(target, 'responseFormat')) {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema') config.responseJsonSchema = format.schema;
  }
  const thinking = supportsSetting(target, 'reasoning') ? encodeThinkingConfig(request.reasoning, target.upstreamModel) : undefined;
  if (thinking !== undefined) config.thinkingConfig = thinking;
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * `thinkingConfig`: an explicit budget wins; otherwise Gemini 3 gets a `thinkingLevel` and 2.x a
 * `thinkingBudget` (sending both is a 400). Thought summaries are asked for unless thinking is off.
 */
function encodeThinkingConfig(reasoning: Conversation['reasoning'], model: string): JsonObject | undefined {
  if (reasoning === undefined) return undefined;
  const out: JsonObject = {};
  if (reasoning.budgetTokens !== undefined) out.thinkingBudget = reasoning.budgetTokens;
  else if (reasoning.effort !== undefined) {
    if (isGemini3OrLater(model)) out.thinkingLevel = LEVEL_BY_EFFORT[reasoning.effort];
    else out.thinkingBudget = BUDGET_BY_EFFORT[reasoning.effort];
  }
  const off = out.thinkingBudget === 0 || reasoning.effort === 'none';
  if (!off) out.includeThoughts = true;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Function tools -> `[{functionDeclarations:[{name, description, parametersJsonSchema}]}]`. */
export function encodeGeminiTools(tools: ToolDefinition[]): JsonObject[] {
  return [{
    functionDeclarations: tools.map((tool) => {
      const declaration: JsonObject = { name: tool.name };
      if (tool.description !== undefined) declaration.description = tool.description;
      // parametersJsonSchema takes plain JSON Schema; `parameters` only an OpenAPI subset.
      declaration.parametersJsonSchema = Object.keys(tool.parameters).length > 0 ? tool.parameters : { type: 'object', properties: {} };
      return declaration;
    }),
  }];
}

/** tool_choice -> `toolConfig.functionCallingConfig`: auto AUTO, none NONE, required ANY, named ANY + allowedFunctionNames. */
export function encodeToolConfig(choice: ToolChoice): JsonObject {
  if (choice.type === 'tool') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  const mode = choice.type === 'none' ? 'NONE' : choice.type === 'required' ? 'ANY' : 'AUTO';
  return { functionCallingConfig: { mode } };
}
