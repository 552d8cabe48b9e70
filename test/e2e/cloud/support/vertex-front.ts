/**
 * A fake Vertex AI endpoint that accepts only access tokens the fake Google token endpoint issued
 * and has not expired (401 UNAUTHENTICATED otherwise, as Vertex answers). It checks the Vertex
 * URL grammar (project, location, publisher, method) and the Claude body envelope
 * (`anthropic_version: vertex-2023-10-16`, no `model`), then serves the answer from the kit's
 * Gemini and Anthropic deployments (which validate the bodies as their APIs would), rewriting
 * the Vertex request into the Developer API request it mirrors. Text embeddings (`:predict`)
 * are answered here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { KitUpstream } from '../../../kit/fake-upstream.js';
import { claudeBreakpoints } from '../../../kit/bedrock/cache-points.js';
import { startCloudFront, type CloudFront } from './cloud-front.js';
import { forward, sendJson } from './forward.js';

const ROUTE = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

/** One Vertex call as received; `breakpoints`: where a Claude body's cache_control blocks are (checked as Claude checks them). */
export interface VertexCall { project: string; location: string; publisher: string; model: string; method: string; host: string; body: Record<string, unknown>; headers: IncomingHttpHeaders; breakpoints: string[] }

export type VertexFront = CloudFront<VertexCall>;

/** Starts the front; `accepts` is the token endpoint's check. */
export function startVertexFront(options: { project: string; accepts: (token: string) => boolean; gemini: KitUpstream; anthropic: KitUpstream }): Promise<VertexFront> {
  return startCloudFront<VertexCall>((why) => ({ error: { code: 400, message: why, status: 'INVALID_ARGUMENT' } }), ({ req, res, raw, url, calls, bad, refuse }) => {
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !options.accepts(auth.slice(7))) {
      return refuse({ error: { code: 401, message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', status: 'UNAUTHENTICATED' } });
    }
    if (req.headers['x-goog-api-key']) return bad('an API key was sent along with the token');
    const m = req.method === 'POST' ? ROUTE.exec(url.pathname) : null;
    if (!m) return bad(`no Vertex route ${req.method} ${url.pathname}`);
    const [, project, location, publisher, modelPath, method] = m as unknown as [string, string, string, string, string, string];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return bad('body is not JSON');
    }
    const model = decodeURIComponent(modelPath);
    const cache = publisher === 'anthropic' ? claudeBreakpoints(body) : { at: [], problems: [] };
    calls.push({ project, location, publisher, model, method, host: String(req.headers.host), body, headers: req.headers, breakpoints: cache.at });
    if (cache.problems.length > 0) return bad(cache.problems.join('; '));
    if (project !== options.project) return bad(`project ${project}`);
    if (publisher === 'google' && (method === 'generateContent' || method === 'streamGenerateContent')) {
      const stream = method === 'streamGenerateContent';
      if (stream && url.searchParams.get('alt') !== 'sse') return bad('streamGenerateContent without alt=sse');
      return forward(res, `${options.gemini.url}/v1beta/models/${encodeURIComponent(model)}:${method}${stream ? '?alt=sse' : ''}`, { 'content-type': 'application/json', 'x-goog-api-key': options.gemini.apiKey }, JSON.stringify(body));
    }
    if (publisher === 'google' && method === 'predict') return predict(res, body, bad);
    if (publisher === 'anthropic' && (method === 'rawPredict' || method === 'streamRawPredict')) {
      if ('model' in body) return bad('Claude on Vertex takes the model in the URL, not in the body');
      if (body.anthropic_version !== 'vertex-2023-10-16') return bad(`anthropic_version ${String(body.anthropic_version)}`);
      if ((body.stream === true) !== (method === 'streamRawPredict')) return bad(`stream ${String(body.stream)} on ${method}`);
      const { anthropic_version: _v, ...rest } = body;
      // Fine-grained tool streaming (`eager_input_streaming`, GA on every platform, Vertex
      // included; the AI SDK sets it when streaming) is newer than the kit's Anthropic schema:
      // checked here, then left out of what the kit validates.
      if (Array.isArray(rest.tools)) {
        rest.tools = (rest.tools as Array<Record<string, unknown>>).map(({ eager_input_streaming: eager, ...t }) => {
          if (eager !== undefined && typeof eager !== 'boolean') bad('tools[].eager_input_streaming must be a boolean');
          return t;
        });
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': options.anthropic.apiKey, 'anthropic-version': '2023-06-01' };
      if (typeof req.headers['anthropic-beta'] === 'string') headers['anthropic-beta'] = req.headers['anthropic-beta'];
      return forward(res, `${options.anthropic.url}/v1/messages`, headers, JSON.stringify({ model, ...rest }));
    }
    return bad(`unknown method ${publisher}:${method}`);
  });
}

/** Text embeddings `:predict`: one prediction per instance (deterministic values). */
function predict(res: import('node:http').ServerResponse, body: Record<string, unknown>, bad: (why: string) => void): void {
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0) return bad('instances must be a non-empty array');
  const tasks = new Set(['RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY']);
  for (const i of instances as Array<Record<string, unknown>>) {
    if (typeof i?.content !== 'string') return bad('instances[].content must be a string');
    if (i.task_type !== undefined && !tasks.has(String(i.task_type))) return bad(`task_type ${String(i.task_type)}`);
  }
  const dims = Number((body.parameters as { outputDimensionality?: number } | undefined)?.outputDimensionality ?? 4);
  sendJson(res, 200, {
    predictions: (instances as Array<{ content: string }>).map((i, n) => ({
      embeddings: { values: Array.from({ length: dims }, (_, k) => Number(((n + 1) * 0.1 + k * 0.01).toFixed(4))), statistics: { token_count: i.content.split(/\s+/).length, truncated: false } },
    })),
    metadata: { billableCharacterCount: (instances as Array<{ content: string }>).reduce((a, i) => a + i.content.length, 0) },
  });
}
