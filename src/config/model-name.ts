import type { ModelSpec } from './types.js';

/** The provider's own name of a model: `upstream`, else the part of the id after the provider. */
export function upstreamNameOf(model: Pick<ModelSpec, 'id' | 'upstream'>): string {
  return model.upstream ?? model.id.slice(model.id.indexOf('/') + 1);
}
