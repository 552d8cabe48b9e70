/**
 * A fake Azure OpenAI resource (v1 API and deployment routes) that accepts only the configured
 * `api-key` or a bearer token the fake Entra authority issued and has not expired (401
 * otherwise, in Azure's words). Chat answers come from the kit's OpenAI deployment with Azure's
 * annotations added: `prompt_filter_results` and per-choice `content_filter_results`, and an
 * annotation-only first stream chunk (`choices: []`). Two prompts script the content filter:
 * one containing BLOCKED PROMPT gets Azure's 400 `content_filter`, one containing FILTERED
 * ANSWER a 200 cut short with `finish_reason: content_filter`.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { KitUpstream } from '../../../kit/fake-upstream.js';
import { startCloudFront, type CloudFront } from './cloud-front.js';
import { forward, forwardJson, sendJson } from './forward.js';

const SAFE = { filtered: false, severity: 'safe' };
export const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE, jailbreak: { filtered: false, detected: false } } }];
export const CHOICE_FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE, protected_material_text: { filtered: false, detected: false } };
const FILTERED_RESULTS = { ...CHOICE_FILTER_RESULTS, violence: { filtered: true, severity: 'high' } };

/** One call as received. */
export interface AzureCall { path: string; auth: 'api-key' | 'entra'; body: Record<string, unknown>; query: Record<string, string>; headers: IncomingHttpHeaders }

export type AzureFront = CloudFront<AzureCall>;

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages as Array<{ role?: string; content?: unknown }> : [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** Starts the resource; `acceptsToken` is the Entra authority's check, `apiKey` the resource key. */
export function startAzureFront(options: { apiKey?: string; acceptsToken?: (token: string) => boolean; openai: KitUpstream }): Promise<AzureFront> {
  const kitHeaders = { 'content-type': 'application/json', authorization: `Bearer ${options.openai.apiKey}` };

  const authOf = (req: IncomingMessage): AzureCall['auth'] | undefined => {
    const key = req.headers['api-key'];
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : undefined;
    if (key !== undefined && options.apiKey !== undefined && key === options.apiKey && bearer === undefined) return 'api-key';
    if (key === undefined && bearer !== undefined && options.acceptsToken?.(bearer)) return 'entra';
    return undefined;
  };

  const chat = (res: ServerResponse, body: Record<string, unknown>, bad: (why: string) => void): void | Promise<void> => {
    if (typeof body.model !== 'string' || body.model === '') return bad('the v1 API needs the deployment name in model');
    const text = lastUserText(body);
    if (text.includes('BLOCKED PROMPT')) {
      return sendJson(res, 400, {
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
          type: null, param: 'prompt', code: 'content_filter', status: 400,
          innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { ...CHOICE_FILTER_RESULTS, jailbreak: { filtered: true, detected: true } } },
        },
      });
    }
    const base = { id: 'chatcmpl-azure-filtered', created: Math.floor(Date.now() / 1000), model: 'gpt-6.1-terra-2026-01-01', system_fingerprint: 'fp_azure' };
    if (text.includes('FILTERED ANSWER')) {
      const usage = { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 };
      if (body.stream !== true) {
        return sendJson(res, 200, { ...base, object: 'chat.completion', prompt_filter_results: PROMPT_FILTER_RESULTS, choices: [{ index: 0, finish_reason: 'content_filter', message: { role: 'assistant', content: 'I can' }, content_filter_results: FILTERED_RESULTS }], usage });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (c: unknown) => res.write(`data: ${JSON.stringify(c)}\n\n`);
      chunk({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER_RESULTS });
      chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'I can' }, finish_reason: null, content_filter_results: CHOICE_FILTER_RESULTS }] });
      chunk({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'content_filter', content_filter_results: FILTERED_RESULTS }] });
      chunk({ ...base, object: 'chat.completion.chunk', choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    const target = `${options.openai.url}/v1/chat/completions`;
    if (body.stream === true) {
      const preamble = `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER_RESULTS })}\n\n`;
      return forward(res, target, kitHeaders, JSON.stringify(body), preamble);
    }
    return forwardJson(res, target, kitHeaders, JSON.stringify(body), (json) => {
      json.prompt_filter_results = PROMPT_FILTER_RESULTS;
      for (const c of (json.choices as Array<Record<string, unknown>> | undefined) ?? []) c.content_filter_results = CHOICE_FILTER_RESULTS;
    });
  };

  return startCloudFront<AzureCall>((why) => ({ error: { code: 'BadRequest', message: why } }), ({ req, res, raw, url, calls, bad, refuse }) => {
    const auth = authOf(req);
    if (!auth) {
      return refuse({ error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return bad('body is not JSON');
    }
    calls.push({ path: url.pathname, auth, body, query: Object.fromEntries(url.searchParams), headers: req.headers });
    if (req.method === 'POST' && url.pathname === '/openai/v1/chat/completions') return chat(res, body, bad);
    const embeddings = /^\/openai\/deployments\/([^/]+)\/embeddings$/.exec(url.pathname);
    if (req.method === 'POST' && embeddings) {
      if (!url.searchParams.get('api-version')) return bad('deployment routes need api-version');
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const dims = typeof body.dimensions === 'number' ? body.dimensions : 3;
      return sendJson(res, 200, {
        object: 'list',
        model: decodeURIComponent(embeddings[1]!),
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: Array.from({ length: dims }, (_v, k) => Number(((index + 1) / 10 + k / 100).toFixed(4))) })),
        usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length },
      });
    }
    return bad(`no Azure OpenAI route ${req.method} ${url.pathname}`);
  });
}
