/**
 * The one conversation every matrix cell plays, and what the recorded upstream fixtures
 * (test/fixtures/text-upstreams/<dialect>/) answer to it. Every dialect's fixtures say the same
 * thing in their own wire format, so one table of expectations serves all cells.
 */

export const SYSTEM_PROMPT = 'You are a terse assistant. Answer in one sentence.';
export const TEXT_QUESTION = 'What is the capital of France?';
export const TOOL_QUESTION = 'What is the weather in Paris right now?';
export const IMAGE_QUESTION = 'Describe these two images.';

/** The answers the fixtures carry. */
export const ANSWERS = {
  text: 'The capital of France is Paris.',
  toolFinal: 'It is 18°C and sunny in Paris.',
  image: 'The first image shows a red square; the second is a tiny transparent dot.',
} as const;

/** The tool the client offers and the call every `tool-call` fixture makes. */
export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object' as const,
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};
export const TOOL_ARGUMENTS = { city: 'Paris', unit: 'celsius' } as const;
/** What the client's tool returns (sent back on the second turn). */
export const TOOL_RESULT = '{"temperature_c":18,"conditions":"sunny"}';

/** Tool call ids the fixtures use (Gemini sends none; the gateway makes one up). */
export const UPSTREAM_CALL_IDS: Record<string, string | undefined> = {
  'openai-chat': 'call_Wx1aB2cD3eF4gH5iJ6kL7mN8',
  'openai-responses': 'call_Rsp8hQ2ZkW1xY3vT5uN7mK9j',
  'anthropic-messages': 'toolu_01A09q90qw90lq917835lq9',
  gemini: undefined,
};

/** The two images of the image case: one by URL, one inline (a 1x1 PNG). */
export const IMAGE_URL = 'https://example.com/images/red-square.png';
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`;

/** Token usage as the gateway's internal form counts it: input includes cached tokens. */
export interface ExpectedUsage { input: number; output: number; cached: number; reasoning: number }

/** Usage per fixture. Anthropic's wire says input 32 + cache read 10 for the `text` case, etc. */
export const FIXTURE_USAGE: Record<'text' | 'tool-call' | 'tool-final' | 'image', ExpectedUsage> = {
  text: { input: 42, output: 9, cached: 10, reasoning: 0 },
  'tool-call': { input: 85, output: 28, cached: 64, reasoning: 12 },
  'tool-final': { input: 130, output: 16, cached: 0, reasoning: 0 },
  image: { input: 1100, output: 18, cached: 0, reasoning: 0 },
};

/** The catalog model the matrix uses for each upstream dialect, and its upstream name. */
export const DIALECT_MODELS: Array<{ dialect: string; model: string; upstream: string }> = [
  { dialect: 'openai-chat', model: 'openai/gpt-4.1-mini', upstream: 'gpt-4.1-mini' },
  { dialect: 'anthropic-messages', model: 'anthropic/claude-sonnet-5-5', upstream: 'claude-sonnet-5-5' },
  { dialect: 'gemini', model: 'google/gemini-3.8-flash', upstream: 'gemini-3.8-flash' },
  { dialect: 'openai-responses', model: 'openai-responses/gpt-6.2-sol', upstream: 'gpt-6.2-sol' },
];

/** Thinking the `thinking-tool-call` fixtures carry before their tool call. */
export const THINKING = {
  text: 'The user wants the current weather in Paris. I should call get_weather with celsius.',
  /** Anthropic's signature of that thinking block. */
  anthropicSignature: 'EqQBCkgIARABGAIiQL7yHV3fU8t2PVK8k3qX0gQ1mN9rZs4cY6wB2eJ5hT7uK0pL3oF8vA1sD4gH6jK9lM2nQ5rS8tU1wX4zA7bC0dE3fG==',
  /** Gemini: the thought summary's text and signature, and the functionCall's own signature. */
  geminiText: '**Checking the weather**\n\nThe user wants the current weather in Paris. I should call get_weather with celsius.',
  geminiThoughtSignature: 'CiQBcsjafEVHdUQ0k5BbaCZ9F3pEw2uLqVnYxTm7sR1oP8dKcGhJ',
  geminiCallSignature: 'CiwBcsjafFOpR8xM2tU9vW1yZ3aB5cD7eF9gH1iJ3kL5mN7oP9qR1sT3uV5wX7yZ',
  /** OpenAI responses: the reasoning item of the `tool-call` fixture. */
  responsesReasoningId: 'rs_3d4e5f60718293a4b5c6d7e8f9a0b1c3',
  responsesEncrypted: 'gAAAAABo9Xq2c1K3mZ8vR4tY6uI0pL2kJ5hG7fD9sA1zX3cV5bN7mQ9wE2rT4yU6iO8pA0sD2fG4hJ6kL8zX0cV2bN4mQ6wE8rT0yU2iO4pA6sD8fG0hJ2kL4==',
} as const;
