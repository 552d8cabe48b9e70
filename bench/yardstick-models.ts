/**
 * The model list a server in the gateway's place under ../shared/bench/cpu-per-req.sh answers on
 * GET /v1/models: the script picks the first `openai/` chat model that takes `temperature`, and
 * the server forwards it upstream without its prefix.
 */
export const YARDSTICK_MODEL_LIST = JSON.stringify({
  object: 'list',
  data: [{ id: 'openai/gpt-4o-mini', object: 'model', supported_endpoints: ['/v1/chat/completions'], supported_parameters: ['temperature', 'max_tokens'] }],
});
