/**
 * What a matrix cell reads back from an official SDK, whatever the client format: the parsed
 * answer reduced to the facts every format has (text, tool calls, usage, stop reason).
 */

/** A tool call as the SDK parsed it; `arguments` is the parsed JSON (object) the client got. */
export interface ToolCallView { id: string; name: string; arguments: unknown }

/** Usage in one unit for every client: `input` includes cached tokens (Anthropic's does not, so it is summed). */
export interface UsageView { input: number; output: number; cached?: number; reasoning?: number }

/** One answer as parsed by the official SDK. */
export interface Outcome {
  text: string;
  toolCalls: ToolCallView[];
  usage: UsageView;
  /** finish_reason (chat), stop_reason (messages) or status (responses), as the SDK gives it. */
  stop: string;
  /** The SDK's own object, for client-specific assertions. */
  raw: unknown;
}

/** A tool round trip in progress: the first answer and the way to send the tool result back. */
export interface ToolTurn { first: Outcome; answer(result: string): Promise<Outcome> }

/** One official SDK client of one gateway surface, driving the scenario of scenario.ts. */
export interface ClientDriver {
  /** Shown in test names, e.g. `openai SDK chat.completions`. */
  readonly name: string;
  /** The gateway surface it calls (`openai-chat`, `openai-responses`, `anthropic-messages`). */
  readonly surface: string;
  /** The stop values this client format uses for a finished answer and for a tool call. */
  readonly stops: { end: string; tool: string };
  /** True when the client format has a reasoning-token count. */
  readonly reportsReasoning: boolean;
  askText(model: string, streamed: boolean): Promise<Outcome>;
  askImage(model: string, streamed: boolean): Promise<Outcome>;
  askTool(model: string, streamed: boolean): Promise<ToolTurn>;
}
