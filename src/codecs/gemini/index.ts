/** The Google Gemini generateContent format as an upstream dialect. */
export { geminiDialect } from './dialect.js';
