/**
 * The subset of the OpenAI Chat Completions wire format the codec reads and writes.
 * Reference: https://platform.openai.com/docs/api-reference/chat (openai-node 6.x types).
 */

export interface ChatTextPart { type: 'text'; text: string }
export interface ChatImagePart { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
/** A file (PDF ...) for the model to read (https://platform.openai.com/docs/guides/pdf-files). */
export interface ChatFilePart { type: 'file'; file: { filename?: string; file_data?: string; file_id?: string } }
export type ChatContentPart = ChatTextPart | ChatImagePart | ChatFilePart;

export interface ChatToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }

/**
 * Non-standard thinking blocks carried on assistant messages (the name LiteLLM uses), so that
 * Anthropic thinking signatures survive a round trip through a chat client.
 */
export type ChatThinkingBlock =
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string };

export type ChatRequestMessage =
  | { role: 'system' | 'developer'; content: string | ChatTextPart[] }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
    role: 'assistant';
    content: string | ChatTextPart[] | null;
    tool_calls?: ChatToolCall[];
    /** Non-standard (DeepSeek, vLLM ...): sent only when the provider option asks for it. */
    reasoning_content?: string;
  }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** Assistant message of a non-streamed answer, with the gateway's reasoning extensions. */
export interface ChatResponseMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: ChatToolCall[];
  /** Non-standard: all thinking text of the answer. */
  reasoning_content?: string;
  /** Non-standard: the exact thinking blocks with signatures, to send back next turn. */
  thinking_blocks?: ChatThinkingBlock[];
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: ChatResponseMessage; logprobs: null; finish_reason: ChatFinishReason }>;
  usage: ChatUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string;
  refusal?: null;
  tool_calls?: ChatToolCallDelta[];
  /** Non-standard: a fragment of thinking text. */
  reasoning_content?: string;
  /** Non-standard: one completed thinking block (with its signature) or a redacted one. */
  thinking_blocks?: ChatThinkingBlock[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: ChatDelta; logprobs: null; finish_reason: ChatFinishReason | null }>;
  usage?: ChatUsage | null;
}
