/**
 * Reading what an upstream received, per wire format: the facts a test asserts on (model, tool
 * calls and results, images, system text) found where each provider's format puts them.
 */
/** What the views read of a request a fake upstream received (the kit's and the older fakes' alike). */
export interface ReceivedRequest { body: Record<string, unknown>; model?: string; stream: boolean }

/** An image as the upstream got it: by URL or inline. */
export type ImageView = { url: string } | { mediaType: string; data: string };

/** A tool result as the upstream got it. */
export interface ToolResultView { callId?: string; name?: string; content: string }

/** The facts of one upstream request, read in its own format. */
export interface UpstreamView {
  model(req: ReceivedRequest): string | undefined;
  toolResults(req: ReceivedRequest): ToolResultView[];
  /** Tool calls of earlier assistant turns sent back. */
  priorToolCalls(req: ReceivedRequest): Array<{ id?: string; name: string; arguments: unknown }>;
  images(req: ReceivedRequest): ImageView[];
  system(req: ReceivedRequest): string;
  toolNames(req: ReceivedRequest): string[];
  /** True when a stream request asks for usage (or the format always reports it). */
  asksStreamUsage(req: ReceivedRequest): boolean;
}

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : arr(content).flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])).join('');

function fromDataUrl(url: string): ImageView {
  const m = /^data:([^;,]+);base64,(.*)$/.exec(url);
  return m ? { mediaType: m[1]!, data: m[2]! } : { url };
}

const chatView: UpstreamView = {
  model: (req) => req.body.model as string,
  toolResults: (req) => arr(req.body.messages).filter((m) => m.role === 'tool').map((m) => ({ callId: m.tool_call_id as string, content: textOf(m.content) })),
  priorToolCalls: (req) =>
    arr(req.body.messages).flatMap((m) => arr(m.tool_calls)).map((tc) => {
      const fn = tc.function as Obj;
      return { id: tc.id as string, name: fn.name as string, arguments: JSON.parse(fn.arguments as string) as unknown };
    }),
  images: (req) =>
    arr(req.body.messages).flatMap((m) => arr(m.content)).filter((p) => p.type === 'image_url').map((p) => fromDataUrl((p.image_url as Obj).url as string)),
  system: (req) => arr(req.body.messages).filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).join('\n'),
  toolNames: (req) => arr(req.body.tools).map((t) => (t.function as Obj).name as string),
  asksStreamUsage: (req) => (req.body.stream_options as Obj | undefined)?.include_usage === true,
};

const anthropicView: UpstreamView = {
  model: (req) => req.body.model as string,
  toolResults: (req) =>
    arr(req.body.messages).filter((m) => m.role === 'user').flatMap((m) => arr(m.content)).filter((b) => b.type === 'tool_result')
      .map((b) => ({ callId: b.tool_use_id as string, content: textOf(b.content) })),
  priorToolCalls: (req) =>
    arr(req.body.messages).filter((m) => m.role === 'assistant').flatMap((m) => arr(m.content)).filter((b) => b.type === 'tool_use')
      .map((b) => ({ id: b.id as string, name: b.name as string, arguments: b.input })),
  images: (req) =>
    arr(req.body.messages).flatMap((m) => arr(m.content)).filter((b) => b.type === 'image').map((b) => {
      const s = b.source as Obj;
      return s.type === 'url' ? { url: s.url as string } : { mediaType: s.media_type as string, data: s.data as string };
    }),
  system: (req) => textOf(req.body.system),
  toolNames: (req) => arr(req.body.tools).map((t) => t.name as string),
  // message_start and message_delta always carry usage.
  asksStreamUsage: () => true,
};

const geminiView: UpstreamView = {
  model: (req) => req.model,
  toolResults: (req) =>
    arr(req.body.contents).filter((c) => c.role === 'user').flatMap((c) => arr(c.parts)).filter((p) => p.functionResponse !== undefined).map((p) => {
      const fr = p.functionResponse as Obj;
      const response = fr.response as Obj;
      return {
        ...(typeof fr.id === 'string' ? { callId: fr.id } : {}),
        name: fr.name as string,
        content: typeof response.result === 'string' ? response.result : JSON.stringify(response),
      };
    }),
  priorToolCalls: (req) =>
    arr(req.body.contents).filter((c) => c.role === 'model').flatMap((c) => arr(c.parts)).filter((p) => p.functionCall !== undefined).map((p) => {
      const fc = p.functionCall as Obj;
      return { ...(typeof fc.id === 'string' ? { id: fc.id } : {}), name: fc.name as string, arguments: fc.args };
    }),
  images: (req) =>
    arr(req.body.contents).flatMap((c) => arr(c.parts)).flatMap((p): ImageView[] => {
      if (p.inlineData) return [{ mediaType: (p.inlineData as Obj).mimeType as string, data: (p.inlineData as Obj).data as string }];
      if (p.fileData) return [{ url: (p.fileData as Obj).fileUri as string }];
      return [];
    }),
  system: (req) => textOf((req.body.systemInstruction as Obj | undefined)?.parts),
  toolNames: (req) => arr(req.body.tools).flatMap((t) => arr(t.functionDeclarations)).map((d) => d.name as string),
  // Every streamed chunk carries usageMetadata.
  asksStreamUsage: () => true,
};

const responsesView: UpstreamView = {
  model: (req) => req.body.model as string,
  toolResults: (req) =>
    arr(req.body.input).filter((i) => i.type === 'function_call_output').map((i) => ({ callId: i.call_id as string, content: textOf(i.output) })),
  priorToolCalls: (req) =>
    arr(req.body.input).filter((i) => i.type === 'function_call').map((i) => ({ id: i.call_id as string, name: i.name as string, arguments: JSON.parse(i.arguments as string) as unknown })),
  images: (req) =>
    arr(req.body.input).flatMap((i) => arr(i.content)).filter((p) => p.type === 'input_image').map((p) => fromDataUrl(p.image_url as string)),
  system: (req) =>
    [typeof req.body.instructions === 'string' ? req.body.instructions : '', ...arr(req.body.input).filter((i) => i.role === 'system' || i.role === 'developer').map((i) => textOf(i.content))]
      .filter((s) => s !== '').join('\n'),
  toolNames: (req) => arr(req.body.tools).map((t) => t.name as string),
  // response.completed always carries usage.
  asksStreamUsage: () => true,
};

/** The view of each dialect, by dialect name. */
export const upstreamViews: Record<string, UpstreamView> = {
  'openai-chat': chatView,
  'anthropic-messages': anthropicView,
  gemini: geminiView,
  'openai-responses': responsesView,
};
