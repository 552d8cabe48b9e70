import { EventEmitter } from 'node:events';

/**
 * A request's cancellation: fired when the client goes away or the total deadline passes. undici
 * takes it as it is (an EventEmitter with `aborted` and `reason`), which costs a fraction of an
 * AbortController's signal plus the EventTarget listener undici adds to it on every upstream
 * call (about 4 µs per call on Node 20); a real AbortSignal is made only for the APIs that need
 * one (`signal`, e.g. timers and file streams).
 */
export class RequestAbort extends EventEmitter {
  /** Whether the request was cancelled. */
  aborted = false;
  /** Why: undefined until aborted (TOTAL_DEADLINE for the deadline, an AbortError for the client). */
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  /** Cancels the request once (later calls change nothing), telling every listener. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.emit('abort');
  }

  /** A real AbortSignal that follows this one (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Throws the reason when aborted, as AbortSignal.throwIfAborted does. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}

/** What cancels an upstream call: an AbortSignal, or the request's RequestAbort (cheaper for undici). */
export type CallSignal = AbortSignal | RequestAbort;

/** A real AbortSignal for a CallSignal (for APIs that accept nothing else). */
export function abortSignalOf(signal: CallSignal): AbortSignal {
  return signal instanceof RequestAbort ? signal.signal : signal;
}
