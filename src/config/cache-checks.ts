import type { Diagnostic } from './diagnostics.js';
import type { GatewayConfig } from './types.js';
import { locate, type YamlSource } from './yaml-source.js';

/**
 * Checks of the `cache:` block beyond its meta-schema: a Redis cache needs store.url to be
 * Redis (else this instance's memory serves, said as a warning), and the semantic cache's
 * embedding model must be an embeddings model of the catalog; a fleet sharing answers through
 * Redis without a ledger database keeps the semantic index per instance (a warning).
 */
export function checkCache(config: GatewayConfig, main: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: Array<string | number>, code: string, severity: Diagnostic['severity'], message: string) => {
    out.push({ file: main.file, ...locate(main, path, false), code, severity, message });
  };
  const cache = config.cache;
  if (cache.store === 'redis' && config.store.url === 'memory') {
    at(['cache', 'store'], 'W_CACHE_STORE_MEMORY', 'warning', 'cache.store is redis but store.url is memory: the cache is kept in this instance\'s memory');
  }
  const embedding = cache.semantic?.embedding_model;
  if (embedding) {
    const model = config.models.find((m) => m.id === embedding);
    if (!model) at(['cache', 'semantic', 'embedding_model'], 'E_UNKNOWN_MODEL', 'error', `cache.semantic.embedding_model '${embedding}' is not a model of the catalog`);
    else if (!model.endpoints.includes('/v1/embeddings')) at(['cache', 'semantic', 'embedding_model'], 'E_NOT_EMBEDDINGS', 'error', `cache.semantic.embedding_model '${embedding}' does not serve /v1/embeddings`);
    // Answers shared by the fleet, their prompts' vectors not: a hit on one instance may miss on another.
    if (cache.store === 'redis' && !config.ledger.url) {
      at(['cache', 'semantic', 'embedding_model'], 'W_SEMANTIC_INDEX_MEMORY', 'warning', 'cache.semantic: answers are shared through Redis but the semantic index is kept in each instance\'s memory (ledger.url with pgvector shares it)');
    }
  }
  return out;
}
