/**
 * SigV4 signing of one finished request with @smithy/signature-v4 (the AWS SDK's own signer),
 * signing name `bedrock` (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html).
 * Loaded by dynamic import on a provider's first signed request only.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, Checksum, SourceData } from '@smithy/types';

/** A request as an authorizer sees it: headers are written in place. */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array;
}

/** SHA-256 (and HMAC-SHA-256 with a secret) on node:crypto, as the signer's Checksum. */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.make();
  }
  update(data: Uint8Array | string): void {
    this.hash.update(toBytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.hash.digest());
  }
  reset(): void {
    this.hash = this.make();
  }
  private make(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
}

function toBytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** One signer per credentials object (its signing-key cache lives as long as they do) and region. */
const signers = new WeakMap<AwsCredentialIdentity, Map<string, SignatureV4>>();

function signerFor(credentials: AwsCredentialIdentity, region: string, service: string): SignatureV4 {
  let byRegion = signers.get(credentials);
  if (!byRegion) signers.set(credentials, (byRegion = new Map()));
  const key = `${region}|${service}`;
  let signer = byRegion.get(key);
  if (!signer) byRegion.set(key, (signer = new SignatureV4({ credentials, region, service, sha256: NodeSha256, uriEscapePath: true, applyChecksum: true })));
  return signer;
}

/**
 * Signs `req` for `region` and `service`: adds `host`, `x-amz-date`, `x-amz-content-sha256`,
 * `x-amz-security-token` (session credentials) and `authorization` to its headers. Every header
 * already there is signed, except the ones SigV4 leaves out (user-agent, connection ...).
 */
export async function signAwsRequest(req: SignableRequest, credentials: AwsCredentialIdentity, region: string, service = 'bedrock'): Promise<void> {
  const url = new URL(req.url);
  // undici sends the URL's host as Host: the signed value must be that one.
  req.headers.host = url.host;
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  const signed = await signerFor(credentials, region, service).sign({
    method: req.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    // The path as sent (labels already percent-encoded); the signer escapes it once more for the canonical form.
    path: url.pathname,
    query,
    headers: { ...req.headers },
    body: req.body,
  });
  for (const [name, value] of Object.entries(signed.headers)) req.headers[name.toLowerCase()] = value;
}
