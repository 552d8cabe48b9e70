/**
 * Answers built by code in a text dialect's wire format, for the Fault `answer` field: tests that
 * need a given text, length or usage (budgets, held streams) instead of a recorded fixture. Each
 * builder returns the non-streamed JSON and the SSE events the provider would send.
 */

/** A text answer as a text dialect's JSON body and stream events. */
export interface ScriptedAnswer { json: Record<string, unknown>; events: string[] }

/** OpenAI chat completions usage. */
export interface ChatUsage { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } }

const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;

/**
 * A chat completion whose content is `pieces` joined; streamed as a role chunk, one chunk per
 * piece, the finish chunk, the usage chunk and `[DONE]` (as with `stream_options.include_usage`).
 */
export function chatAnswer(pieces: readonly string[], usage: ChatUsage, model = 'gpt-fake'): ScriptedAnswer {
  const base = { id: 'chatcmpl-kit', created: 1767225600, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frame({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  return {
    json: {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: pieces.join(''), refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage,
    },
    events: [
      chunk({ role: 'assistant', content: '' }),
      ...pieces.map((p) => chunk({ content: p })),
      chunk({}, 'stop'),
      frame({ ...base, object: 'chat.completion.chunk', choices: [], usage }),
      'data: [DONE]\n\n',
    ],
  };
}

/** Anthropic Messages usage. */
export interface MessagesUsage { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number }

/**
 * A Messages answer whose text is `pieces` joined; streamed with Anthropic's event grammar
 * (message_start with the input usage, one text_delta per piece, message_delta with the output
 * tokens, message_stop).
 */
export function messagesAnswer(pieces: readonly string[], usage: MessagesUsage, model = 'claude-fake'): ScriptedAnswer {
  const input = { input_tokens: usage.input_tokens, cache_read_input_tokens: usage.cache_read_input_tokens ?? 0, cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0 };
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return {
    json: {
      id: 'msg_kit', type: 'message', role: 'assistant', model,
      content: [{ type: 'text', text: pieces.join('') }],
      stop_reason: 'end_turn', stop_sequence: null,
      usage: { ...input, output_tokens: usage.output_tokens },
    },
    events: [
      event('message_start', { message: { id: 'msg_kit', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...input, output_tokens: 1 } } }),
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...pieces.map((text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
      event('content_block_stop', { index: 0 }),
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
      event('message_stop', {}),
    ],
  };
}
