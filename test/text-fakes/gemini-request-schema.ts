/** The Gemini request schema lives in the fake-upstream kit (test/kit/); kept here for the suites not yet ported to it. */
export { geminiGenerateContentSchema, geminiValidatorFor, validateGeminiRequest } from '../kit/gemini-request-schema.js';
