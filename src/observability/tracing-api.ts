import type { Middleware } from 'koa';
import type { RequestListener } from '../calls/request-record.js';
import type { AppState } from '../calls/state.js';

/** Request and upstream-attempt spans exported over OTLP. */
export interface Tracing {
  /** Koa step: opens the request span (child of an incoming `traceparent`) and runs the rest in its context. */
  readonly step: Middleware<AppState>;
  /** Ends request spans when the response has finished; records attempts on them. */
  readonly listener: RequestListener;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Where spans go. */
export interface TracingTarget {
  /** Full OTLP/HTTP traces URL (`.../v1/traces`). */
  url: string;
  serviceName: string;
}
