/**
 * What a Gemini model name says about the API features it has. Gemini 3 takes `thinkingLevel`
 * and validates thought signatures on function calls; 2.x takes `thinkingBudget` and does not
 * (https://ai.google.dev/gemini-api/docs/thinking, https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export function readGeminiMajorVersion(model: string): number | undefined {
  const match = /gemini-(\d+)/i.exec(model);
  return match === null ? undefined : Number(match[1]);
}

/** True for Gemini 3 and later. Unknown names (custom tunes, gemma) read as false. */
export function isGemini3OrLater(model: string): boolean {
  const major = readGeminiMajorVersion(model);
  return major !== undefined && major >= 3;
}

/** Strips the `models/` resource prefix that Gemini model names sometimes carry. */
export function stripModelsPrefix(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}
