import { randomBytes } from 'node:crypto';
import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { readNumber } from './body-fields.js';

/** How long a signed realtime URL is accepted (gateway.yaml `realtime.url_ttl_seconds` default). */
export const REALTIME_URL_TTL_SECONDS = 300;
const MAX_DURATION_SECONDS = 3600;

/**
 * `realtime.sessions`: signs a URL of the gateway's own realtime WebSocket for this model and
 * owner, bounded by `max_duration_seconds` (> 0, <= 3600) and `max_budget_usd` (> 0). The session
 * itself is served by runSandboxRealtimeSession once the engine has verified the URL.
 */
export async function createRealtimeSession(call: OperationCall): Promise<OperationResult> {
  const maxDuration = readNumber(call.body, 'max_duration_seconds');
  const maxBudget = readNumber(call.body, 'max_budget_usd');
  if (maxDuration === undefined || maxDuration <= 0 || maxDuration > MAX_DURATION_SECONDS) {
    throw errors.invalidRequest(`'max_duration_seconds' is required, > 0 and <= ${MAX_DURATION_SECONDS}.`, 'invalid_max_duration', { field: 'max_duration_seconds' });
  }
  if (maxBudget === undefined || maxBudget <= 0) {
    throw errors.invalidRequest("'max_budget_usd' is required and must be > 0.", 'invalid_max_budget', { field: 'max_budget_usd' });
  }
  const session = `rt_${randomBytes(12).toString('hex')}`;
  const signed = call.services.realtime.sign({
    session,
    model: call.model.id,
    owner: call.owner,
    exp: Math.floor(Date.now() / 1000) + REALTIME_URL_TTL_SECONDS,
    max_duration_seconds: maxDuration,
    max_budget_usd: maxBudget,
  });
  return {
    kind: 'json',
    body: {
      id: session,
      object: 'realtime.session',
      model: call.model.id,
      url: signed.url,
      expires_at: signed.expiresAt,
      max_duration_seconds: maxDuration,
      max_budget_usd: maxBudget,
    },
  };
}
