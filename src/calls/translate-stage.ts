import type { CallMeter } from '../billing/call-meter.js';
import { injectCostIntoFrame } from '../billing/frame-cost.js';
import type { SseFrame, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { CallExchange } from './exchange.js';
import { streamFailure, writeStream, type StreamInput, type StreamStage } from './stream-pipeline.js';

/**
 * The translating stage of the stream pipeline: internal events in, the client surface's own
 * frames out, metered as they pass; the cost goes into the frames that carry usage. An error
 * event (from the upstream or its decoder's end) fails the stream.
 */
export function createTranslateStage(surface: SurfaceCodec, request: Conversation, meter: CallMeter): StreamStage<StreamEvent> {
  const encoder = surface.createStreamEncoder(request);
  return {
    push(event, out) {
      if (event.type === 'error') return { error: { status: event.status, type: event.errorType, code: event.code ?? null, message: event.message } };
      meter.observe(event);
      const frames = encoder.encode(event);
      if (event.type === 'usage') for (const f of frames) out.push(injectCostIntoFrame(f, meter.cost()));
      else for (const f of frames) out.push(f);
      return undefined;
    },
    end: () => undefined,
    close: (cost, failed) => (failed ? NO_FRAMES : encoder.end().map((f) => injectCostIntoFrame(f, cost))),
    fail: (error) => encoder.fail(error),
  };
}

const NO_FRAMES: readonly SseFrame[] = [];

/** Streams internal events (the first already in hand) through the pipeline in the client's surface. */
export function streamTranslated(
  ctx: CallExchange,
  surface: SurfaceCodec,
  request: Conversation,
  iterator: AsyncIterator<StreamEvent>,
  first: IteratorResult<StreamEvent>,
  headers: Record<string, string>,
  meter: CallMeter,
): Promise<void> {
  const signal = ctx.state.gw.abort;
  const operation = ctx.state.gw.route.spec.operation;
  const input: StreamInput<StreamEvent> = {
    first: first.done ? [] : [first.value],
    next: async () => {
      const step = await iterator.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: [step.value] };
    },
    close: async () => { await iterator.return?.(); },
    failure: (e) => (isGatewayError(e) ? e : streamFailure(signal, operation)),
  };
  return writeStream(ctx, input, createTranslateStage(surface, request, meter), headers, meter);
}
