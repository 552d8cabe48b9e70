import type { Diagnostic } from './diagnostics.js';
import type { GatewayConfig } from './types.js';
import { locate, type YamlSource } from './yaml-source.js';

/**
 * Checks of the `cache:` block beyond its meta-schema: a Redis cache needs store.url to be
 * Redis (else this instance's memory serves, said as a warning), and the semantic cache's
 * embedding model must be an embeddings model of the catalog.
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
    // Said plainly rather than silently ignored: the key is reserved, the lookup is not built yet.
    at(['cache', 'semantic', 'embedding_model'], 'W_SEMANTIC_CACHE_UNAVAILABLE', 'warning', 'the semantic cache is not available in this version: only exact matches are served');
  }
  return out;
}
