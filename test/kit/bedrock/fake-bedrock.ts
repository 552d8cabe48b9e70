/**
 * A fake AWS Bedrock Runtime on 127.0.0.1 that checks credentials for real: every request's SigV4
 * signature is recomputed from the secret the fake issued (sigv4-verify.ts); a wrong secret, an
 * unknown key, a stale date or an expired session answers 403 with AWS's error name in
 * `x-amzn-ErrorType` and its JSON body. It answers Converse, ConverseStream (CRC-framed event
 * stream), InvokeModel and InvokeModelWithResponseStream (Claude chunks; Titan embeddings), and
 * injects faults: throttling per signing region, an exception message mid-stream. ListAsyncInvokes
 * (`GET /async-invoke`, signed with an empty body) answers an empty list. A second
 * endpoint hands out short-lived session credentials as the ECS/EKS container endpoint does
 * (`AWS_CONTAINER_CREDENTIALS_FULL_URI`), and `/sts` answers STS AssumeRole (signed for `sts`).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { claudeBreakpoints, converseCachePoints } from './cache-points.js';
import { answerClaudeRequest, answerConverseRequest, claudeBody, claudeStreamMessages, converseBody, converseStreamMessages } from './bedrock-answers.js';
import { exceptionMessage } from './event-stream-frames.js';
import { verifySigV4, type IssuedCredential, type SignatureFailure } from './sigv4-verify.js';

/** One request the fake accepted; `breakpoints`: where its prompt-cache breakpoints are (cache-points.ts), checked as Bedrock would. */
export interface BedrockRequest { operation: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream'; modelId: string; region: string; accessKeyId: string; body: Record<string, unknown>; headers: IncomingMessage['headers']; breakpoints: string[] }

export interface FakeBedrock {
  readonly url: string;
  /** `AWS_CONTAINER_CREDENTIALS_FULL_URI` value: hands out session credentials of `sessionTtlMs`. */
  readonly credentialsUrl: string;
  /** Lifetime of the session credentials the credentials endpoint issues (default 1 h). */
  sessionTtlMs: number;
  /** Session credentials issued so far. */
  readonly sessions: Array<{ accessKeyId: string; expiresAt: number }>;
  readonly requests: BedrockRequest[];
  /** 403 answers given (wrong secret, stale date, expired session ...). */
  readonly refusals: SignatureFailure[];
  /** STS AssumeRole calls answered (at `<url>/sts`), with the key that signed each and its region. */
  readonly assumedRoles: Array<{ roleArn: string; sessionName: string; signedBy: string; region: string }>;
  /** Long-term keys the fake accepts. */
  issue(accessKeyId: string, secret: string): void;
  /** Every request signed for `region` answers 429 ThrottlingException until `unthrottle`. */
  throttle(region: string): void;
  unthrottle(): void;
  /** The next stream sends `afterMessages` messages, then this exception message (HTTP status stays 200). */
  failNextStream(exceptionType: string, message: string, afterMessages: number): void;
  reset(): void;
  close(): Promise<void>;
}

/** Starts the fake. */
export async function startFakeBedrock(): Promise<FakeBedrock> {
  const credentials = new Map<string, IssuedCredential>();
  const throttled = new Set<string>();
  let streamFault: { type: string; message: string; after: number } | undefined;
  let seq = 0;
  const state = {
    sessionTtlMs: 3_600_000,
    sessions: [] as Array<{ accessKeyId: string; expiresAt: number }>,
    requests: [] as BedrockRequest[],
    refusals: [] as SignatureFailure[],
    assumedRoles: [] as Array<{ roleArn: string; sessionName: string; signedBy: string; region: string }>,
  };

  const sendError = (res: ServerResponse, status: number, name: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': randomBytes(8).toString('hex') });
    res.end(JSON.stringify({ message }));
  };

  /** New session credentials of `sessionTtlMs`, accepted from now on and recorded in `sessions`. */
  const issueSession = (): { accessKeyId: string; secret: string; sessionToken: string; expiration: string } => {
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const secret = randomBytes(20).toString('base64');
    const sessionToken = randomBytes(24).toString('base64');
    const expiresAt = Date.now() + state.sessionTtlMs;
    credentials.set(accessKeyId, { secret, sessionToken, expiresAt });
    state.sessions.push({ accessKeyId, expiresAt });
    return { accessKeyId, secret, sessionToken, expiration: new Date(expiresAt).toISOString() };
  };

  const serveCredentials = (res: ServerResponse) => {
    const s = issueSession();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ AccessKeyId: s.accessKeyId, SecretAccessKey: s.secret, Token: s.sessionToken, Expiration: s.expiration }));
  };

  /** STS AssumeRole (awsQuery: a form body in, XML out), signed for `sts` with long-term keys. */
  const serveAssumeRole = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const verified = verifySigV4({ method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body }, (id) => credentials.get(id), 'sts');
    if ('error' in verified) {
      state.refusals.push(verified);
      res.writeHead(403, { 'content-type': 'text/xml' });
      return res.end(`<ErrorResponse><Error><Type>Sender</Type><Code>${verified.error}</Code><Message>${verified.message}</Message></Error></ErrorResponse>`);
    }
    const form = new URLSearchParams(body.toString('utf8'));
    const s = issueSession();
    state.assumedRoles.push({ roleArn: form.get('RoleArn') ?? '', sessionName: form.get('RoleSessionName') ?? '', signedBy: verified.accessKeyId, region: verified.region });
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>${s.accessKeyId}</AccessKeyId><SecretAccessKey>${s.secret}</SecretAccessKey><SessionToken>${s.sessionToken}</SessionToken><Expiration>${s.expiration}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROATEST:${form.get('RoleSessionName') ?? ''}</AssumedRoleId><Arn>arn:aws:sts::123456789012:assumed-role/test/${form.get('RoleSessionName') ?? ''}</Arn></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>${randomBytes(8).toString('hex')}</RequestId></ResponseMetadata></AssumeRoleResponse>`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === 'GET' && req.url === '/creds') return serveCredentials(res);
    if (req.method === 'GET' && req.url === '/cat.png') {
      // An image to fetch (clients may send image URLs; Converse needs the bytes).
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    }
    if (req.method === 'POST' && req.url?.startsWith('/sts')) return serveAssumeRole(req, body, res);
    const verified = verifySigV4({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body }, (id) => credentials.get(id));
    if ('error' in verified) {
      state.refusals.push(verified);
      return sendError(res, 403, verified.error, verified.message);
    }
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'GET' && path === '/async-invoke') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ asyncInvokeSummaries: [] }));
    }
    const m = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(path);
    if (!m || req.method !== 'POST') return sendError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const modelId = decodeURIComponent(m[1]!);
    const operation = m[2] as BedrockRequest['operation'];
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return sendError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    }
    const cache = operation.startsWith('converse') ? converseCachePoints(json, modelId) : claudeBreakpoints(json);
    state.requests.push({ operation, modelId, region: verified.region, accessKeyId: verified.accessKeyId, body: json, headers: req.headers, breakpoints: cache.at });
    if (cache.problems.length > 0) return sendError(res, 400, 'ValidationException', cache.problems.join('; '));
    if (throttled.has(verified.region)) return sendError(res, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
    seq++;
    if (operation === 'invoke' && modelId.startsWith('amazon.titan-embed')) {
      const dims = typeof json.dimensions === 'number' ? json.dimensions : 1024;
      const embedding = Array.from({ length: dims }, (_, i) => Number(((i % 7) / 10).toFixed(2)));
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ embedding, embeddingsByType: { float: embedding }, inputTextTokenCount: String(json.inputText ?? '').split(/\s+/).length }));
    }
    if (operation === 'converse' || operation === 'invoke') {
      const a = operation === 'converse' ? answerConverseRequest(json, modelId, seq) : answerClaudeRequest(json, modelId, seq);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(operation === 'converse' ? converseBody(a) : claudeBody(a, modelId, seq)));
    }
    const messages = operation === 'converse-stream'
      ? converseStreamMessages(answerConverseRequest(json, modelId, seq))
      : claudeStreamMessages(answerClaudeRequest(json, modelId, seq), modelId, seq);
    const fault = streamFault;
    streamFault = undefined;
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomBytes(8).toString('hex') });
    for (const [i, message] of messages.entries()) {
      if (fault && i === fault.after) {
        res.end(exceptionMessage(fault.type, { message: fault.message }));
        return;
      }
      res.write(message);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };

  const server: Server = createServer((req, res) => { handle(req, res).catch(() => res.destroy()); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    credentialsUrl: `${url}/creds`,
    issue: (accessKeyId: string, secret: string) => { credentials.set(accessKeyId, { secret }); },
    throttle: (region: string) => { throttled.add(region); },
    unthrottle: () => throttled.clear(),
    failNextStream: (type: string, message: string, after: number) => { streamFault = { type, message, after }; },
    reset: () => { state.requests.length = 0; state.refusals.length = 0; state.assumedRoles.length = 0; throttled.clear(); streamFault = undefined; },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
