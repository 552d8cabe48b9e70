/**
 * `gen_ai.operation.name` values of the OpenTelemetry GenAI semantic conventions for the
 * gateway's operations (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
 * Operations the conventions do not name keep the gateway's own operation name.
 */
const GEN_AI_OPERATIONS: Readonly<Record<string, string>> = {
  'chat.completions': 'chat',
  messages: 'chat',
  responses: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
};

/** The semantic-convention operation name for a route operation (`chat`, `embeddings` ...). */
export function toGenAiOperation(operation: string | undefined): string {
  if (!operation) return '';
  return GEN_AI_OPERATIONS[operation] ?? operation;
}
