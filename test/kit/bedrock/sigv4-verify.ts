/**
 * A SigV4 check as AWS does it, recomputed from the request as received
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), never trusting
 * what the client claims: the canonical request (method, the path re-escaped per segment,
 * sorted query, exactly the SignedHeaders with trimmed values, the body's SHA-256), the string to
 * sign for the credential scope, the key derived from the secret of the access key id, and a
 * constant-time comparison. Failures carry the error name and message AWS answers with (403).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Credentials the fake issued: the secret, and the session token and expiry of session credentials. */
export interface IssuedCredential { secret: string; sessionToken?: string; expiresAt?: number }

/** A request that passed: who signed it and for which region. */
export interface VerifiedSigner { accessKeyId: string; region: string; date: string }

/** A refused request: AWS's error name and message. */
export interface SignatureFailure { error: string; message: string }

/** How far `x-amz-date` may be from the fake's clock (AWS allows about 5 minutes). */
const CLOCK_SKEW_MS = 5 * 60_000;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 escaping of one path segment, as SigV4's canonical URI wants. */
function escapeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search].map(([k, v]) => [escapeSegment(k), escapeSegment(v)]).sort(([a, x], [b, y]) => (a === b ? (x! < y! ? -1 : 1) : a! < b! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** Parses an `x-amz-date` (YYYYMMDDTHHMMSSZ) into ms. */
function parseAmzDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

/**
 * Verifies a request signed for `service`; the issued credentials are looked up by access key
 * id. Returns the signer, or the failure AWS would answer with.
 */
export function verifySigV4(
  req: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer },
  lookup: (accessKeyId: string) => IssuedCredential | undefined,
  service = 'bedrock',
  now = Date.now(),
): VerifiedSigner | SignatureFailure {
  const auth = headerValue(req.headers, 'authorization') ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { error: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, accessKeyId, date, region, scopeService, signedList, signature] = m as unknown as string[];
  const issued = lookup(accessKeyId!);
  if (!issued) return { error: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (scopeService !== service) return { error: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${service}'.` };
  const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (Number.isNaN(signedAt) || !amzDate.startsWith(date!)) return { error: 'IncompleteSignatureException', message: 'Date must be in ISO-8601 \'basic format\'.' };
  if (Math.abs(now - signedAt) > CLOCK_SKEW_MS) {
    return { error: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is now earlier than the allowed window (5 min.)` };
  }
  const signed = signedList!.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return { error: 'InvalidSignatureException', message: "'Host' or 'x-amz-date' must be a 'SignedHeader' in the AWS Authorization." };
  if (issued.sessionToken !== undefined) {
    if (!signed.includes('x-amz-security-token') || headerValue(req.headers, 'x-amz-security-token') !== issued.sessionToken) return { error: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
    if (issued.expiresAt !== undefined && now >= issued.expiresAt) return { error: 'ExpiredTokenException', message: 'The security token included in the request is expired' };
  }
  const bodyHash = sha256(req.body);
  const claimed = headerValue(req.headers, 'x-amz-content-sha256');
  if (claimed !== undefined && claimed !== bodyHash) return { error: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  const url = new URL(req.url, 'http://fake');
  const canonicalUri = url.pathname.split('/').map((s) => escapeSegment(s)).join('/');
  const canonicalHeaders = signed.map((name) => `${name}:${(headerValue(req.headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonical = [req.method, canonicalUri, canonicalQuery(url.searchParams), canonicalHeaders, signedList, claimed ?? bodyHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${issued.secret}`, date!), region!), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) {
    return { error: 'InvalidSignatureException', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.' };
  }
  return { accessKeyId: accessKeyId!, region: region!, date: date! };
}
