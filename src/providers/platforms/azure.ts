import type { Platform, RequestShaper } from './types.js';

/**
 * Azure OpenAI's v1 API: `<endpoint>/openai/v1/chat/completions` (and `/responses`) with the
 * deployment name as `model` in the body, no `api-version`. The endpoint may be given as the
 * resource URL (`https://<resource>.openai.azure.com`) or with `/openai/v1` already on it.
 */
const v1Shaper: RequestShaper = (req, call) => {
  const base = call.baseUrl ?? '';
  const hasPrefix = /\/openai\/v1\/?$/.test(base);
  return hasPrefix ? req : { ...req, path: `/openai/v1${req.path.startsWith('/') ? '' : '/'}${req.path}` };
};

/** Azure OpenAI (Azure AI Foundry) resources: the OpenAI wire formats with `api-key` or Entra tokens. */
export const azurePlatform: Platform = {
  name: 'azure',
  types: ['openai-chat', 'openai-responses'],
  requires: [],
  authTypes: ['azure', 'api_key'],
  shaper: (type) => (type === 'openai-chat' || type === 'openai-responses' ? v1Shaper : undefined),
};
