/**
 * The shape Cohere, Jina and Voyage share: one key, an embeddings path and a rerank path, each
 * body checked against the provider's documented fields (a refusal in the provider's own error
 * body, recorded as a finding) before the provider's answer is built.
 */
import type { HandlerDialect, HandlerReply, HandlerRequest } from '../handler.js';
import { bearerOf } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';

/** One operation of an embed+rerank provider: its path, the body's problems, its answer. */
export interface EmbedRerankOperation<B> {
  path: string;
  errors(body: B): string[];
  reply(body: B): HandlerReply;
}

/** What differs between the providers. */
export interface EmbedRerankSpec<E, R> {
  name: string;
  key: string;
  findings: Finding[];
  /** The answer to a wrong key. */
  unauthorized: HandlerReply;
  /** The answer to a body the provider refuses. */
  refusal(errors: string[]): HandlerReply;
  errorBody(status: number, message: string): unknown;
  embed: EmbedRerankOperation<E>;
  rerank: EmbedRerankOperation<R>;
}

/** The handler dialect of an embed+rerank provider. */
export function embedRerankHandler<E, R>(spec: EmbedRerankSpec<E, R>): HandlerDialect {
  const run = <B>(op: EmbedRerankOperation<B>, req: HandlerRequest, violations: string[]): HandlerReply => {
    const body = req.json as B;
    return recordFindings(spec.findings, violations, spec.name, req, op.errors(body), spec.refusal) ?? op.reply(body);
  };
  return {
    name: spec.name,
    match: (method, url) => method === 'POST' && (url.pathname === spec.embed.path || url.pathname === spec.rerank.path),
    handle: (req, violations) => {
      if (bearerOf(req) !== spec.key) return refuseKey(violations, spec.name, req, spec.unauthorized);
      return req.path === spec.embed.path ? run(spec.embed, req, violations) : run(spec.rerank, req, violations);
    },
    errorBody: spec.errorBody,
  };
}
