import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyPlan } from '../../compile/runtime.js';
import { errors, gatewayError } from '../../errors/gateway-error.js';

/**
 * Puts the provider's credentials on a forwarded request, through the provider's own
 * RequestAuthorizer (src/providers/auth: the bearer token, `api-key`, static key header or SigV4
 * signature its model calls carry). `req.url` and `req.headers` are already the upstream's
 * (./passthrough-access.ts); the headers are replaced by the authorized ones.
 *
 * A signer that covers the body (SigV4 hashes it, and the hash goes in a header, before the
 * first body byte) needs the body whole: it is read here, up to the route's
 * `max_signed_body_bytes` (413 `request_too_large` above it), sent with its `content-length`,
 * and returned so the proxy sends exactly the bytes signed. AWS accepts an unsigned payload
 * (`UNSIGNED-PAYLOAD`) from S3 only, not from Bedrock, so holding the body is the only way.
 * Other credentials leave the body streaming (undefined is returned).
 */
export async function authorizeForwarded(plan: ProxyPlan, req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  const authorizer = plan.authorizer;
  if (!authorizer) throw errors.providerNotConfigured(plan.provider, plan.missing ?? 'its credentials');
  const headers = flatHeaders(req.headers);
  let body: Buffer | undefined;
  if (authorizer.signsBody && hasBody(headers)) {
    body = await readBody(req, res, plan);
    delete headers['transfer-encoding'];
    headers['content-length'] = String(body.length);
  }
  const pending = authorizer.authorize({ method: req.method ?? 'GET', url: new URL(req.url ?? '/', plan.origin).href, headers, body });
  if (pending) await pending;
  req.headers = headers;
  return body;
}

/** True when the request carries a body (a chunked one, or a declared length above zero). */
function hasBody(headers: Record<string, string>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Headers as one string each (a repeated header joined as HTTP joins it), so what is signed is what is sent. */
function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * The body, whole, or 413 when it exceeds the route's limit: refused before reading when the
 * declared length says so, else as soon as the bytes read pass it. A refused body is not read
 * on: the connection closes after the answer.
 */
function readBody(req: IncomingMessage, res: ServerResponse, plan: ProxyPlan): Promise<Buffer> {
  const limit = plan.maxSignedBodyBytes;
  const tooLarge = () => {
    res.shouldKeepAlive = false;
    return gatewayError('request_too_large', `Provider '${plan.provider}' signs each request body (AWS SigV4), so this pass-through route holds a body whole before sending it, up to proxy.max_signed_body_bytes (${limit} bytes); this body is larger.`, { details: { limit_bytes: limit, provider: plan.provider } });
  };
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (e?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (e) reject(e);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // The rest is drained, not kept, until the answer closes the connection.
        req.resume();
        return done(tooLarge());
      }
      chunks.push(chunk);
    };
    const onEnd = () => done();
    // The client is gone: the answer is for the access log only.
    const cut = () => errors.invalidRequest('The request body ended before it was complete (the client closed the connection).');
    const onError = () => done(cut());
    const onClose = () => { if (!req.readableEnded) done(cut()); };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
