/**
 * The internal conversation form: the hub every text surface (client format) and every upstream
 * dialect meets in. N surfaces + M dialects = N + M codecs. Plain data only.
 */

/** Where an image comes from. */
export type ImageSource =
  | { kind: 'url'; url: string }
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'file'; fileId: string };

export interface TextPart { type: 'text'; text: string }
export interface ImagePart { type: 'image'; source: ImageSource; detail?: 'auto' | 'low' | 'high' }
/** An assistant's call of a tool. `arguments` is JSON text (possibly `{}`), always complete here. */
export interface ToolCallPart { type: 'tool_call'; id: string; name: string; arguments: string; /** Gemini thoughtSignature and the like, echoed back unchanged. */ signature?: string }
/** The result of a tool call, sent back by the client. */
export interface ToolResultPart { type: 'tool_result'; toolCallId: string; name?: string; content: string | Array<TextPart | ImagePart>; isError?: boolean }
/** Visible reasoning text; `signature` must be echoed back unmodified (Anthropic, Gemini). */
export interface ThinkingPart { type: 'thinking'; text: string; signature?: string }
/** Encrypted reasoning (Anthropic redacted_thinking, OpenAI reasoning.encrypted_content). */
export interface RedactedThinkingPart { type: 'redacted_thinking'; data: string }

/**
 * A document the user attaches (a PDF, a text file ...): inline base64 with its media type, a
 * URL, or an uploaded file's id (the same three sources an image has).
 */
export interface FilePart { type: 'file'; source: ImageSource; filename?: string }

export type Part = TextPart | ImagePart | FilePart | ToolCallPart | ToolResultPart | ThinkingPart | RedactedThinkingPart;

/**
 * One turn. System and developer instructions never appear here: they live in
 * `Conversation.system`. Tool results are parts of a `tool` turn (one turn may hold several).
 */
export interface Message { role: 'user' | 'assistant' | 'tool'; parts: Part[] }

export interface ToolDefinition { name: string; description?: string; /** JSON Schema of the arguments object. */ parameters: Record<string, unknown>; strict?: boolean }

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; schema: Record<string, unknown>; strict?: boolean };

/** A client request in the internal form. Fields absent = not asked for by the client. */
export interface Conversation {
  /** The canonical model id the client asked for (`provider/model`). */
  model: string;
  /** System and developer instructions, in order. */
  system: string[];
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  reasoning?: { effort?: ReasoningEffort; budgetTokens?: number; summary?: 'auto' | 'concise' | 'detailed' };
  responseFormat?: ResponseFormat;
  stream: boolean;
  /** The client asked for a usage chunk in the stream (chat `stream_options.include_usage`). */
  includeUsage?: boolean;
  user?: string;
  metadata?: Record<string, unknown>;
}

/** Token usage. `inputTokens` counts ALL prompt tokens, cached ones included. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** Part of inputTokens written to the provider's prompt cache. */
  cacheWriteInputTokens?: number;
  /** Part of outputTokens spent on reasoning. */
  reasoningTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'stop_sequence' | 'refusal' | 'error';

/** A complete assistant answer in the internal form. */
export interface InternalResponse {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
  /** Assistant parts: text, tool_call, thinking, redacted_thinking. */
  content: Part[];
  finishReason: FinishReason;
  /** The stop sequence that ended the answer, when finishReason is `stop_sequence`. */
  stopSequence?: string;
  usage: Usage;
}

/** What a streamed block is when it starts. */
export type BlockStart =
  | { type: 'text' }
  /** `signature`: Gemini thoughtSignature of the call (copy it into ToolCallPart.signature). */
  | { type: 'tool_call'; id: string; name: string; signature?: string }
  | { type: 'thinking' }
  | { type: 'redacted_thinking'; data: string };

export type BlockDelta =
  | { type: 'text'; text: string }
  /** A fragment of a tool call's JSON arguments; fragments concatenate to the full JSON. */
  | { type: 'arguments'; partialJson: string }
  | { type: 'thinking'; text: string }
  | { type: 'signature'; signature: string };

/**
 * Internal stream events, block-oriented. Order: one `start`, then blocks (`block_start`,
 * `block_delta`*, `block_stop`; indices count from 0 in start order; blocks may interleave),
 * then `finish`, then `usage` (final totals), or an `error` at any point. The iterator ending is
 * the end of the stream.
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string; created: number; usage?: Partial<Usage> }
  | { type: 'block_start'; index: number; block: BlockStart }
  | { type: 'block_delta'; index: number; delta: BlockDelta }
  | { type: 'block_stop'; index: number }
  | { type: 'finish'; finishReason: FinishReason; stopSequence?: string }
  | { type: 'usage'; usage: Usage }
  /**
   * A failure. `detected`: the gateway found it (a stream cut before its terminal event, a
   * malformed frame), so no upstream frame carries it: a same-format passthrough must write it
   * in the client's format instead of forwarding a frame.
   */
  | { type: 'error'; status: number; errorType: string; code?: string | null; message: string; detected?: true };
