import { openAiChatDialect, openAiChatSurface } from '../../../src/codecs/openai-chat/index.js';
import { describeGoldenCases } from './support/golden.js';

// Every folder of test/fixtures/codecs/openai-chat is a case: add fixtures, not code.
describeGoldenCases({
  format: 'openai-chat',
  surface: openAiChatSurface,
  dialect: openAiChatDialect,
  requestSchemaRef: 'openai.json#/components/schemas/CreateChatCompletionRequest',
});
