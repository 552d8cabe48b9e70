import type { CodecError, SseFrame, StreamEncoder } from '../codec.js';
import type { Conversation, FinishReason, InternalResponse, Part, StreamEvent, Usage } from '../internal.js';

/** Renders a whole answer as the surface's JSON object. */
export type TaskRenderer = (response: InternalResponse, request: Conversation) => Record<string, unknown>;

/**
 * Stream encoder of the task surfaces (research, robotics). Their objects are not incremental, so
 * the stream is collected and sent as ONE final SSE frame, `data: <the whole object>`, when the
 * internal stream ends: the same object a non-streaming call returns. A failure is one
 * `data: {"error":{message,type,code}}` frame (SPEC 2.5 envelope), as chat-style streams do.
 */
export class CollectingStreamEncoder implements StreamEncoder {
  private id = '';
  private model = '';
  private created = 0;
  private readonly blocks = new Map<number, Part>();
  private finishReason: FinishReason = 'stop';
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private done = false;

  constructor(private readonly request: Conversation, private readonly render: TaskRenderer) {}

  encode(event: StreamEvent): SseFrame[] {
    if (this.done) return [];
    switch (event.type) {
      case 'start':
        this.id = event.id;
        this.model = event.model;
        this.created = event.created;
        break;
      case 'block_start':
        this.blocks.set(event.index, startPart(event.block));
        break;
      case 'block_delta':
        applyDelta(this.blocks.get(event.index), event.delta);
        break;
      case 'finish':
        this.finishReason = event.finishReason;
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'error':
        return this.fail({ status: event.status, type: event.errorType, code: event.code ?? null, message: event.message });
      default:
        break;
    }
    return [];
  }

  end(): SseFrame[] {
    if (this.done) return [];
    this.done = true;
    const content = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, part]) => part);
    const response: InternalResponse = {
      id: this.id, model: this.model, created: this.created || Math.floor(Date.now() / 1000), content, finishReason: this.finishReason, usage: this.usage,
    };
    return [{ data: JSON.stringify(this.render(response, this.request)) }];
  }

  fail(error: CodecError): SseFrame[] {
    if (this.done) return [];
    this.done = true;
    return [{ data: JSON.stringify({ error: { message: error.message, type: error.type, code: error.code ?? null } }) }];
  }
}

function startPart(block: Extract<StreamEvent, { type: 'block_start' }>['block']): Part {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'thinking') return { type: 'thinking', text: '' };
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
  return { type: 'tool_call', id: block.id, name: block.name, arguments: '', ...(block.signature !== undefined ? { signature: block.signature } : {}) };
}

function applyDelta(part: Part | undefined, delta: Extract<StreamEvent, { type: 'block_delta' }>['delta']): void {
  if (part === undefined) return;
  if (delta.type === 'text' && part.type === 'text') part.text += delta.text;
  else if (delta.type === 'thinking' && part.type === 'thinking') part.text += delta.text;
  else if (delta.type === 'arguments' && part.type === 'tool_call') part.arguments += delta.partialJson;
  else if (delta.type === 'signature' && (part.type === 'thinking' || part.type === 'tool_call')) part.signature = (part.signature ?? '') + delta.signature;
}
