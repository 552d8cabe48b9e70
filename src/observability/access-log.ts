import type { Logger } from 'pino';
import type { RequestRecord } from '../calls/request-record.js';

/**
 * The access log: one structured line per request, written when the response has finished
 * (streams included), with the status the client got. Built from the RequestRecord alone (no
 * headers, no bodies), so it never holds a key or a prompt. A client that went away is an
 * info event like any other request; only statuses the gateway answered with 5xx are errors.
 */
export function createAccessLog(logger: Logger): (record: Readonly<RequestRecord>) => void {
  return (r) => {
    const level = (r.status ?? 0) >= 500 && !r.clientAborted ? 'error' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const u = r.usage;
    logger[level]({
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      route: r.route,
      operation: r.operation,
      status: r.status,
      error_code: r.errorCode,
      model: r.model,
      requested_model: r.requestedModel,
      provider: r.provider,
      upstream: r.upstream,
      key_id: r.keyId,
      key_name: r.keyName !== r.keyId ? r.keyName : undefined,
      team: r.team,
      streamed: r.streamed,
      tokens: u ? { input: u.input, output: u.output, cached_input: u.cachedInput, cache_write_input: u.cacheWriteInput, reasoning: u.reasoning, estimated: u.estimated } : undefined,
      cost_usd: r.costUsd,
      cache: r.cache,
      saved_usd: r.savedUsd,
      request_bytes: r.requestBytes,
      response_bytes: r.responseBytes,
      attempts: r.attempts,
      fallback_reason: r.fallbackReason,
      breaker_forced: r.breakerForced,
      ttfb_ms: r.ttfbMs,
      duration_ms: r.durationMs,
      client_aborted: r.clientAborted,
    }, 'request');
  };
}
