/**
 * Per-request validation results of a provider fake. Tests read `findings` (one entry per
 * validated request, empty `errors` = valid); a refused request is also a kit violation, so a
 * rig that asserts `violations` empty catches a request the provider would have refused.
 */
import type { HandlerReply, HandlerRequest } from '../handler.js';

/** The validation result of one request. */
export interface Finding { path: string; errors: string[] }

/**
 * Records the findings of `req`; when there are any, also records a violation under `fake`'s
 * name and returns the provider's refusal (`refusal(errors)`), else undefined (go on answering).
 */
export function recordFindings(findings: Finding[], violations: string[], fake: string, req: HandlerRequest, errors: string[], refusal: (errors: string[]) => HandlerReply): HandlerReply | undefined {
  findings.push({ path: req.path, errors });
  if (errors.length === 0) return undefined;
  violations.push(`${fake}: ${req.method} ${req.path}: ${errors.join('; ')}`);
  return refusal(errors);
}

/** A refused key: a violation (the gateway sent the wrong credentials) and the provider's answer. */
export function refuseKey(violations: string[], fake: string, req: HandlerRequest, reply: HandlerReply): HandlerReply {
  violations.push(`${fake}: ${req.method} ${req.path}: wrong or missing API key`);
  return reply;
}
