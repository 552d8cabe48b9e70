/**
 * The checks of the Open Responses acceptance suite (openresponses/openresponses,
 * `bin/compliance-test.ts` running `src/lib/compliance-tests.ts`), ported test for test: the
 * same request bodies and the same validators, with the same error texts. The two optional
 * templates (`file-search`, `offline-web-search`) are skipped by the suite unless a vector store
 * or offline web search is configured, and a gateway has neither, so they are not ported.
 * `tool-calling-streaming` is from the suite's earlier revision (the streamed tool call events).
 */

type Obj = Record<string, unknown>;

/** A Responses object as the validators read it. */
export interface ResponseResource { id: string; status: string; output: Array<Obj & { type: string }> }

/** What a validator sees of a stream. */
export interface ValidatorContext { streaming: boolean; sseResult?: { events: Array<{ data: Obj }>; errors: string[] } }

/** A semantic check of a parsed response: readable errors, none when it passes. */
export type ResponseValidator = (response: ResponseResource, context: ValidatorContext) => string[];

/** One request (or, with `turns`, a chain of two) and its validators. */
export interface TestTemplate {
  id: string;
  name: string;
  streaming?: boolean;
  /** The request body (the suite adds `stream`). */
  getRequest?: (model: string) => Obj;
  /** Two-turn templates: the second request is built from the first response. */
  turns?: { first: (model: string) => Obj; second: (model: string, first: ResponseResource) => Obj | string };
  validators: ResponseValidator[];
}

const hasOutput: ResponseValidator = (response) => (!response.output || response.output.length === 0 ? ['Response has no output items'] : []);

const hasOutputType = (type: string): ResponseValidator => (response) =>
  response.output?.some((item) => item.type === type) ? [] : [`Expected output item of type "${type}" but none found`];

const completedStatus: ResponseValidator = (response) => (response.status !== 'completed' ? [`Expected status "completed" but got "${response.status}"`] : []);

const streamingEvents: ResponseValidator = (_, context) => {
  if (!context.streaming) return [];
  return !context.sseResult || context.sseResult.events.length === 0 ? ['No streaming events received'] : [];
};

const streamingSchema: ResponseValidator = (_, context) => (!context.streaming || !context.sseResult ? [] : context.sseResult.errors);

const functionCallEvents: ResponseValidator = (_, context) => {
  if (!context.streaming || !context.sseResult) return [];
  const errors: string[] = [];
  const events = context.sseResult.events.map((e) => e.data);
  const types = events.map((e) => e.type);
  if (!events.some((e) => e.type === 'response.output_item.added' && (e.item as Obj | undefined)?.type === 'function_call')) errors.push('Missing response.output_item.added event with function_call item');
  if (!types.includes('response.function_call_arguments.delta')) errors.push('Missing response.function_call_arguments.delta event');
  if (!types.includes('response.function_call_arguments.done')) errors.push('Missing response.function_call_arguments.done event');
  if (!events.some((e) => e.type === 'response.output_item.done' && (e.item as Obj | undefined)?.type === 'function_call')) errors.push('Missing response.output_item.done event with function_call item');
  return errors;
};

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};

const WEATHER_QUESTION = [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }];

/** A red heart icon on a white background (the suite's image). */
const HEART_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAABmklEQVR42tyWAaTyUBzFew/eG4AHz+MBSAHKBiJRGFKwIgQQJKLUIioBIhCAiCAAEizAQIAECaASqFFJq84nudjnaqvuPnxzgP9xfrq5938csPn7PwHTKSoViCIEAYEAMhmoKsU2mUCWEQqB5xEMIp/HaGQG2G6RSuH9HQ7H34rFrtPbdz4jl6PbwmEsl3QA1mt4vcRKk8dz9eg6IpF7tt9fzGY0gCgafFRFo5Blc5vLhf3eCOj1yNhM5GRMVK0aATxPZoz09YXjkQDmczJgquGQAPp9WwCNBgG027YACgUC6HRsAZRKBDAY2AJoNv/ZnwzA6WScznG3p4UAymXGAEkyXrTFAh8fLAGqagQAyGaZpYsi7bHTNPz8MEj//LxuFPo+UBS8vb0KaLXubrRa7aX0RMLCykwmn0z3+XA4WACcTpCkh9MFAZpmuVXo+mO/w+/HZvNgbblcUCxaSo/Hyck80Yu6XXDcvfVZr79cvMZjuN2U9O9vKAqjZrfbIZ0mV4TUi9Xqz6jddNy//7+e3n8Fhf/Llo2kxi8AQyGRoDkmAhAAAAAASUVORK5CYII=';

/** A one-page PDF titled "OpenResponses File Input Fixture" (the suite's file). */
const FIXTURE_PDF =
  'data:application/pdf;base64,JVBERi0xLjEKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCAzMDAgMTQ0XSAvQ29udGVudHMgNCAwIFIgL1Jlc291cmNlcyA8PCAvRm9udCA8PCAvRjEgNSAwIFIgPj4gPj4gPj4KZW5kb2JqCjQgMCBvYmoKPDwgL0xlbmd0aCA3NCA+PgpzdHJlYW0KQlQKL0YxIDEyIFRmCjcyIDcyIFRkCihUaXRsZTogT3BlblJlc3BvbnNlcyBGaWxlIElucHV0IEZpeHR1cmUpIFRqCkVUCmVuZHN0cmVhbQplbmRvYmoKNSAwIG9iago8PCAvVHlwZSAvRm9udCAvU3VidHlwZSAvVHlwZTEgL0Jhc2VGb250IC9IZWx2ZXRpY2EgPj4KZW5kb2JqCnRyYWlsZXIKPDwgL1Jvb3QgMSAwIFIgPj4KJSVFT0Y=';

/** The suite's templates, in its order. */
export const TEMPLATES: TestTemplate[] = [
  {
    id: 'basic-response',
    name: 'Basic Text Response',
    getRequest: (model) => ({ model, input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }] }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'streaming-response',
    name: 'Streaming Response',
    streaming: true,
    getRequest: (model) => ({ model, input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }] }),
    validators: [streamingEvents, streamingSchema, completedStatus],
  },
  {
    id: 'system-prompt',
    name: 'System Prompt',
    getRequest: (model) => ({
      model,
      input: [
        { type: 'message', role: 'system', content: 'You are a pirate. Always respond in pirate speak.' },
        { type: 'message', role: 'user', content: 'Say hello.' },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'tool-calling',
    name: 'Tool Calling',
    getRequest: (model) => ({ model, input: WEATHER_QUESTION, tools: [WEATHER_TOOL] }),
    validators: [hasOutput, hasOutputType('function_call')],
  },
  {
    id: 'tool-calling-streaming',
    name: 'Tool Calling (Streaming)',
    streaming: true,
    getRequest: (model) => ({ model, input: WEATHER_QUESTION, tools: [WEATHER_TOOL] }),
    validators: [streamingEvents, streamingSchema, functionCallEvents],
  },
  {
    id: 'function-call-roundtrip',
    name: 'Function Call Round Trip',
    turns: {
      first: (model) => ({ model, input: 'Use the weather tool to get the temperature in San Francisco.', tools: [WEATHER_TOOL], tool_choice: { type: 'function', name: 'get_weather' } }),
      second: (model, first) => {
        const call = first.output.find((item) => item.type === 'function_call');
        if (!call || !('call_id' in call)) return 'First response did not include a function_call with call_id';
        return { model, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '64 degrees and clear' }] };
      },
    },
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'image-input',
    name: 'Image Input',
    getRequest: (model) => ({
      model,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What do you see in this image? Answer in one sentence.' }, { type: 'input_image', image_url: HEART_PNG }] }],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'file-input',
    name: 'File Input',
    getRequest: (model) => ({
      model,
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Read the attached file and answer with its title only.' },
            { type: 'input_file', filename: 'openresponses-fixture.pdf', file_data: FIXTURE_PDF },
          ],
        },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'multi-turn',
    name: 'Multi-turn Conversation',
    getRequest: (model) => ({
      model,
      input: [
        { type: 'message', role: 'user', content: 'My name is Alice.' },
        { type: 'message', role: 'assistant', content: 'Hello Alice! Nice to meet you. How can I help you today?' },
        { type: 'message', role: 'user', content: 'What is my name?' },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: 'previous-response-id',
    name: 'Previous Response ID',
    turns: {
      first: (model) => ({ model, input: 'Remember this code word: papaya. Reply with only OK.' }),
      second: (model, first) => ({ model, previous_response_id: first.id, input: 'What code word did I ask you to remember?' }),
    },
    validators: [hasOutput, completedStatus],
  },
];
