import { anthropicMessagesDialect, anthropicMessagesSurface } from '../../../src/codecs/anthropic-messages/index.js';
import { describeGoldenCases } from '../openai-chat/support/golden.js';

// Every folder of test/fixtures/codecs/anthropic-messages is a case: add fixtures, not code.
describeGoldenCases({
  format: 'anthropic-messages',
  surface: anthropicMessagesSurface,
  dialect: anthropicMessagesDialect,
  requestSchemaRef: 'anthropic.json#/components/schemas/CreateMessageParams',
});
