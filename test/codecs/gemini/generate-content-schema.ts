/**
 * JSON Schema of the Gemini `GenerateContentRequest` body, written from Google's reference
 * (https://ai.google.dev/api/generate-content#request-body, https://ai.google.dev/api/caching#Content,
 * #Part, #Tool, #ToolConfig, #GenerationConfig, #ThinkingConfig) and the @google/genai types.
 * Unknown members are rejected (`additionalProperties: false`) so a misspelt field fails the test
 * instead of being ignored upstream; only fields the docs list are allowed.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const blob = { type: 'object', additionalProperties: false, required: ['mimeType', 'data'], properties: { mimeType: { type: 'string' }, data: { type: 'string', contentEncoding: 'base64' } } };
const fileData = { type: 'object', additionalProperties: false, required: ['fileUri'], properties: { mimeType: { type: 'string' }, fileUri: { type: 'string' } } };
const functionCall = { type: 'object', additionalProperties: false, required: ['name'], properties: { id: { type: 'string' }, name: { type: 'string' }, args: { type: 'object' } } };
const functionResponse = {
  type: 'object', additionalProperties: false, required: ['name', 'response'],
  // `response` must be a JSON object (Struct), never a bare string.
  properties: { id: { type: 'string' }, name: { type: 'string' }, response: { type: 'object' } },
};

/** Part: exactly one data member (text, inlineData, fileData, functionCall, functionResponse) plus thought metadata. */
const part = {
  type: 'object', additionalProperties: false,
  properties: { text: { type: 'string' }, thought: { type: 'boolean' }, thoughtSignature: { type: 'string' }, inlineData: blob, fileData, functionCall, functionResponse },
  oneOf: [
    { required: ['text'] }, { required: ['inlineData'] }, { required: ['fileData'] }, { required: ['functionCall'] }, { required: ['functionResponse'] },
  ],
};

const content = {
  type: 'object', additionalProperties: false, required: ['parts'],
  properties: { role: { enum: ['user', 'model'] }, parts: { type: 'array', minItems: 1, items: part } },
};

const functionDeclaration = {
  type: 'object', additionalProperties: false, required: ['name'],
  properties: { name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$' }, description: { type: 'string' }, parametersJsonSchema: { type: 'object' } },
};

const generationConfig = {
  type: 'object', additionalProperties: false,
  properties: {
    temperature: { type: 'number' }, topP: { type: 'number' }, topK: { type: 'number' }, maxOutputTokens: { type: 'integer', minimum: 1 },
    stopSequences: { type: 'array', items: { type: 'string' } }, candidateCount: { type: 'integer' },
    responseMimeType: { enum: ['text/plain', 'application/json', 'text/x.enum'] }, responseJsonSchema: { type: 'object' },
    thinkingConfig: {
      type: 'object', additionalProperties: false,
      properties: { includeThoughts: { type: 'boolean' }, thinkingBudget: { type: 'integer' }, thinkingLevel: { enum: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] } },
      // Sending both a level and a budget is a 400.
      not: { required: ['thinkingBudget', 'thinkingLevel'] },
    },
  },
};

const schema = {
  type: 'object', additionalProperties: false, required: ['contents'],
  properties: {
    contents: { type: 'array', minItems: 1, items: content },
    systemInstruction: { type: 'object', additionalProperties: false, required: ['parts'], properties: { parts: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } } } } },
    tools: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { functionDeclarations: { type: 'array', minItems: 1, items: functionDeclaration } } } },
    toolConfig: {
      type: 'object', additionalProperties: false,
      properties: { functionCallingConfig: { type: 'object', additionalProperties: false, properties: { mode: { enum: ['AUTO', 'ANY', 'NONE', 'VALIDATED'] }, allowedFunctionNames: { type: 'array', items: { type: 'string' } } } } },
    },
    generationConfig,
  },
};

let validator: ValidateFunction | undefined;

/** The compiled GenerateContentRequest validator. */
export function generateContentValidator(): ValidateFunction {
  validator ??= new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  return validator;
}
