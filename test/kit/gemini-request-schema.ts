/**
 * Google publishes no OpenAPI document for the Gemini Developer API among the vendored ones (test/fixtures/openapi), so the
 * fake validates `generateContent` / `streamGenerateContent` bodies against this hand-written
 * schema of the documented request fields (https://ai.google.dev/api/generate-content#request-body,
 * Content / Part: https://ai.google.dev/api/caching#Content, Tool and ToolConfig:
 * https://ai.google.dev/api/caching#Tool). Gemini rejects unknown fields ("Invalid JSON payload
 * received. Unknown name ..."), so every object is closed. Field names are the documented
 * camelCase ones.
 */
import Ajv2020 from 'ajv/dist/2020.js';

const blob = { type: 'object', additionalProperties: false, required: ['mimeType', 'data'], properties: { mimeType: { type: 'string', minLength: 1 }, data: { type: 'string', contentEncoding: 'base64', pattern: '^[A-Za-z0-9+/=_-]+$' } } };
const fileData = { type: 'object', additionalProperties: false, required: ['fileUri'], properties: { mimeType: { type: 'string' }, fileUri: { type: 'string', minLength: 1 } } };
const functionCall = { type: 'object', additionalProperties: false, required: ['name'], properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 }, args: { type: 'object' } } };
// `response` must be a JSON object (https://ai.google.dev/api/caching#FunctionResponse).
const functionResponse = {
  type: 'object', additionalProperties: false, required: ['name', 'response'],
  properties: {
    id: { type: 'string' }, name: { type: 'string', minLength: 1 }, response: { type: 'object' },
    parts: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { inlineData: blob } } },
    willContinue: { type: 'boolean' }, scheduling: { enum: ['SCHEDULING_UNSPECIFIED', 'SILENT', 'WHEN_IDLE', 'INTERRUPT'] },
  },
};
const dataFields = ['text', 'inlineData', 'functionCall', 'functionResponse', 'fileData', 'executableCode', 'codeExecutionResult'];

/** A Part holds exactly one kind of data (the `data` union field), plus optional metadata. */
const part = {
  type: 'object',
  additionalProperties: false,
  properties: {
    text: { type: 'string' },
    inlineData: blob,
    functionCall,
    functionResponse,
    fileData,
    executableCode: { type: 'object', required: ['language', 'code'], properties: { language: { type: 'string' }, code: { type: 'string' } } },
    codeExecutionResult: { type: 'object', required: ['outcome'], properties: { outcome: { type: 'string' }, output: { type: 'string' } } },
    thought: { type: 'boolean' },
    thoughtSignature: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9+/=_-]+$' },
    partMetadata: { type: 'object' },
    videoMetadata: { type: 'object' },
    mediaResolution: { type: 'object' },
  },
  oneOf: dataFields.map((field) => ({ required: [field] })),
};

const content = {
  type: 'object',
  additionalProperties: false,
  required: ['parts'],
  properties: { role: { enum: ['user', 'model'] }, parts: { type: 'array', minItems: 1, items: part } },
};

const functionDeclaration = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    // "Must start with a letter or an underscore ... a-z, A-Z, 0-9, underscores, colons, dots and dashes, max 64".
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$' },
    description: { type: 'string' },
    behavior: { enum: ['UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING'] },
    parameters: { type: 'object' },
    parametersJsonSchema: {},
    response: { type: 'object' },
    responseJsonSchema: {},
  },
  not: { required: ['parameters', 'parametersJsonSchema'] },
};

const tool = {
  type: 'object',
  additionalProperties: false,
  properties: {
    functionDeclarations: { type: 'array', items: functionDeclaration },
    googleSearchRetrieval: { type: 'object' }, codeExecution: { type: 'object' }, googleSearch: { type: 'object' },
    urlContext: { type: 'object' }, computerUse: { type: 'object' }, fileSearch: { type: 'object' }, googleMaps: { type: 'object' },
  },
};

const thinkingLevels = ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'];
const generationConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    stopSequences: { type: 'array', maxItems: 5, items: { type: 'string' } },
    responseMimeType: { type: 'string' },
    responseSchema: { type: 'object' },
    responseJsonSchema: {},
    responseModalities: { type: 'array', items: { enum: ['MODALITY_UNSPECIFIED', 'TEXT', 'IMAGE', 'AUDIO'] } },
    candidateCount: { type: 'integer', minimum: 1 },
    maxOutputTokens: { type: 'integer', minimum: 1 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    topP: { type: 'number', minimum: 0, maximum: 1 },
    topK: { type: 'integer', minimum: 1 },
    seed: { type: 'integer' },
    presencePenalty: { type: 'number' },
    frequencyPenalty: { type: 'number' },
    responseLogprobs: { type: 'boolean' },
    logprobs: { type: 'integer' },
    enableEnhancedCivicAnswers: { type: 'boolean' },
    speechConfig: { type: 'object' },
    imageConfig: { type: 'object' },
    mediaResolution: { type: 'string' },
    thinkingConfig: {
      type: 'object',
      additionalProperties: false,
      properties: {
        includeThoughts: { type: 'boolean' },
        thinkingBudget: { type: 'integer', minimum: -1 },
        // REST examples spell levels in lower case; the enum names are upper case. Both accepted.
        thinkingLevel: { enum: [...thinkingLevels, ...thinkingLevels.map((l) => l.toLowerCase())] },
      },
      // "You cannot use both thinkingLevel and thinkingBudget in the same request" (400).
      not: { required: ['thinkingLevel', 'thinkingBudget'] },
    },
  },
};

/** GenerateContentRequest body (the model is in the URL path, not the body). */
export const geminiGenerateContentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['contents'],
  properties: {
    // Multi-turn contents need their role (user or model), so it is required here.
    contents: { type: 'array', minItems: 1, items: { ...content, required: ['role', 'parts'] } },
    systemInstruction: content,
    tools: { type: 'array', items: tool },
    toolConfig: {
      type: 'object',
      additionalProperties: false,
      properties: {
        functionCallingConfig: {
          type: 'object',
          additionalProperties: false,
          properties: {
            mode: { enum: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'] },
            allowedFunctionNames: { type: 'array', items: { type: 'string' } },
          },
        },
        retrievalConfig: { type: 'object' },
      },
    },
    safetySettings: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['category', 'threshold'], properties: { category: { type: 'string' }, threshold: { type: 'string' } } } },
    generationConfig,
    cachedContent: { type: 'string' },
  },
} as const;

let validate: ReturnType<Ajv2020.default['compile']> | undefined;

/**
 * Validates a generateContent body. Beyond the schema, Gemini 3 models check thought signatures:
 * the first functionCall of each model turn must carry its `thoughtSignature`, else a 400
 * "Function call is missing a thought_signature" (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export function validateGeminiRequest(body: unknown, model: string): string[] {
  validate ??= new Ajv2020.default({ strict: false, allErrors: true }).compile(geminiGenerateContentSchema);
  const findings = validate(body) ? [] : (validate.errors ?? []).slice(0, 12).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  const major = /gemini-(\d+)/.exec(model);
  if (major && Number(major[1]) >= 3 && findings.length === 0) {
    const contents = (body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    contents.forEach((turn, i) => {
      const firstCall = turn.parts.find((p) => p.functionCall !== undefined);
      if (turn.role === 'model' && firstCall && typeof firstCall.thoughtSignature !== 'string') {
        findings.push(`/contents/${i} Function call is missing a thought_signature`);
      }
    });
  }
  return findings;
}
