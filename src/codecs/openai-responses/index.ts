/** The OpenAI Responses format: client surface (POST /v1/responses) and upstream dialect. */
export { openAiResponsesSurface } from './surface.js';
export { openAiResponsesDialect } from './dialect.js';
