import { readCacheControl } from '../shared/cache-control.js';
import { errors } from '../../errors/gateway-error.js';
import type { ResponseFormat, ToolChoice, ToolDefinition } from '../internal.js';
import { readBoolean, asObject, readString, isRecord, type JsonObject } from '../shared/json.js';

/**
 * Responses function tools are flat: `{type:'function', name, description, parameters, strict}`
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools).
 * The chat form `{type:'function', function:{...}}` is tolerated on input.
 */
export function decodeTools(raw: unknown): ToolDefinition[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.map((value, index) => {
    const tool = asObject(value);
    if (tool.type !== 'function') {
      throw errors.invalidRequest(`tools[${index}]: built-in tool type '${String(tool.type)}' is not supported by this model; only function tools are.`, 'unsupported_tool');
    }
    const fn = isRecord(tool.function) ? tool.function : tool;
    const name = readString(fn.name);
    if (name === undefined) throw errors.invalidRequest(`tools[${index}].name is required.`, 'invalid_tool');
    const definition: ToolDefinition = { name, parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } };
    const description = readString(fn.description);
    if (description !== undefined) definition.description = description;
    const strict = readBoolean(fn.strict);
    if (strict !== undefined) definition.strict = strict;
    const control = readCacheControl(tool.cache_control);
    if (control) definition.cacheControl = control;
    return definition;
  });
}

/** Internal tools -> Responses function tools. `strict` is always written (the API requires it). */
export function encodeTools(tools: ToolDefinition[]): JsonObject[] {
  return tools.map((tool) => {
    const out: JsonObject = { type: 'function', name: tool.name };
    if (tool.description !== undefined) out.description = tool.description;
    out.parameters = tool.parameters;
    // Responses defaults `strict` to true, which rejects schemas without additionalProperties:false;
    // internal tools without a stated preference keep the chat-completions behaviour (false).
    out.strict = tool.strict ?? false;
    return out;
  });
}

/** `"auto" | "none" | "required" | {type:'function', name}` (chat form `{function:{name}}` tolerated). */
export function decodeToolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === 'auto' || raw === 'none' || raw === 'required') return { type: raw };
  if (!isRecord(raw)) return undefined;
  if (raw.type === 'function') {
    const name = readString(raw.name) ?? readString(asObject(raw.function).name);
    if (name !== undefined) return { type: 'tool', name };
  }
  if (raw.type === 'allowed_tools') {
    // {type:'allowed_tools', mode:'auto'|'required', tools:[...]}: keep the mode, the tool list
    // itself has no internal equivalent.
    return asObject(raw).mode === 'required' ? { type: 'required' } : { type: 'auto' };
  }
  return undefined;
}

/** Internal tool choice -> Responses `tool_choice`. */
export function encodeToolChoice(choice: ToolChoice): string | JsonObject {
  return choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type;
}

/** Responses `text.format` -> internal response format. */
export function decodeTextFormat(text: unknown): ResponseFormat | undefined {
  const format = asObject(asObject(text).format);
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const out: ResponseFormat = { type: 'json_schema', schema: asObject(format.schema) };
    const name = readString(format.name);
    if (name !== undefined) out.name = name;
    const strict = readBoolean(format.strict);
    if (strict !== undefined) out.strict = strict;
    return out;
  }
  return undefined;
}

/** Internal response format -> Responses `text` parameter (`name` is required by the API). */
export function encodeTextFormat(format: ResponseFormat): JsonObject {
  if (format.type !== 'json_schema') return { format: { type: format.type } };
  const out: JsonObject = { type: 'json_schema', name: format.name ?? 'response', schema: format.schema };
  if (format.strict !== undefined) out.strict = format.strict;
  return { format: out };
}
