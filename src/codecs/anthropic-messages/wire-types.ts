/**
 * The subset of the Anthropic Messages wire format the codec reads and writes.
 * Reference: https://docs.anthropic.com/en/api/messages and @anthropic-ai/sdk 1.x types.
 */

export type ImageSourceBlock =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export interface TextBlock { type: 'text'; text: string }
export interface ImageBlock { type: 'image'; source: ImageSourceBlock }
export interface ToolUseBlock { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<TextBlock | ImageBlock>;
  is_error?: boolean;
}
export interface ThinkingBlock { type: 'thinking'; thinking: string; signature: string }
export interface RedactedThinkingBlock { type: 'redacted_thinking'; data: string }

/** A document (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support): a PDF or plain text. */
export interface DocumentBlock {
  type: 'document';
  source: { type: 'base64'; media_type: 'application/pdf'; data: string } | { type: 'text'; media_type: 'text/plain'; data: string } | { type: 'url'; url: string } | { type: 'file'; file_id: string };
  title?: string;
}

export type ContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export interface AnthropicMessageParam { role: 'user' | 'assistant'; content: ContentBlock[] }

export interface AnthropicTool { name: string; description?: string; input_schema: Record<string, unknown>; strict?: boolean }

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type AnthropicThinking =
  | { type: 'enabled'; budget_tokens: number }
  | { type: 'adaptive' }
  | { type: 'disabled' };

export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface AnthropicOutputConfig {
  effort?: AnthropicEffort;
  format?: { type: 'json_schema'; schema: Record<string, unknown> };
}

/** Usage as the Messages API reports it: `input_tokens` EXCLUDES cache reads and writes. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}
