/**
 * The request-validation rules of SPEC 4.2-4.16 and section 8 as data: one valid body per POST
 * route, one case per rule that must be refused with 400 naming the field, and bodies at the
 * edges of each rule that must be accepted. Shared by the schema-level test (ajv on the route
 * files) and the HTTP test (the running gateway), so both check the very same table.
 */
import { PNG_DATA_URI, buildSilentWavBase64 } from './media.js';

/** A request body (always a JSON object here). */
export type Body = Record<string, unknown>;

/** One rule violation: POSTing `body` to `route` must answer 400 naming `field`. */
export interface RuleCase {
  route: string;
  /** What is wrong, for the test title. */
  rule: string;
  body: Body;
  /** Name the error message must contain. */
  field: string;
}

/** A body at the edge of a rule that must pass validation. */
export interface AcceptCase {
  route: string;
  rule: string;
  body: Body;
}

const WAV = buildSilentWavBase64();

/** A minimal valid body per POST JSON route (sandbox models, so the gateway can serve it). */
export const VALID_BODIES: Readonly<Record<string, Body>> = {
  '/v1/chat/completions': { model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }] },
  '/v1/messages': { model: 'sandbox/echo-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  '/v1/responses': { model: 'sandbox/echo-1', input: 'hi' },
  '/v1/responses/compact': { model: 'sandbox/echo-1', input: 'hi' },
  '/v1/images/generations': { model: 'sandbox/image-1', prompt: 'a red square' },
  '/v1/images/edits': { model: 'sandbox/image-1', prompt: 'make it blue', image: PNG_DATA_URI },
  '/v1/audio/speech': { model: 'sandbox/speech-1', input: 'hello' },
  '/v1/audio/music': { model: 'sandbox/music-1', input: 'calm piano' },
  '/v1/audio/transcriptions': { model: 'sandbox/transcribe-1', audio_base64: WAV, audio_format: 'wav' },
  '/v1/research/runs': { model: 'sandbox/echo-1', input: 'why is the sky blue?' },
  '/v1/robotics/sessions': { model: 'sandbox/echo-1', input: 'pick up the red cube' },
  '/v1/embeddings': { model: 'sandbox/embed-1', input: 'hello' },
  '/v1/rerank': { model: 'sandbox/rerank-1', query: 'cat', documents: ['a cat sat', 'a dog ran'] },
  '/v1/video/generations': { model: 'sandbox/video-1', prompt: 'waves on a beach', duration_seconds: 4 },
  '/v1/realtime/sessions': { model: 'sandbox/realtime-1', max_duration_seconds: 60, max_budget_usd: 0.5 },
  '/v1/files': { content_base64: Buffer.from('hello').toString('base64'), filename: 'hello.txt', mime_type: 'text/plain' },
};

/** The valid body of `route` with `patch` applied; a patch value of undefined removes the field. */
export function withBody(route: string, patch: Body): Body {
  const out: Body = { ...VALID_BODIES[route] };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

const cases: RuleCase[] = [];
const accepts: AcceptCase[] = [];

/** Adds rule cases for one route: [rule, patch, field]. */
function refuse(route: string, rows: Array<[rule: string, patch: Body, field: string]>): void {
  for (const [rule, patch, field] of rows) cases.push({ route, rule, body: withBody(route, patch), field });
}

/** Adds accept cases for one route: [rule, patch]. */
function accept(route: string, rows: Array<[rule: string, patch: Body]>): void {
  for (const [rule, patch] of rows) accepts.push({ route, rule, body: withBody(route, patch) });
}

/** Rows shared by every model route: `model` required, a string, min length 1. */
const modelRows = (): Array<[string, Body, string]> => [
  ['model is missing', { model: undefined }, 'model'],
  ['model is not a string', { model: 42 }, 'model'],
  ['model is empty', { model: '' }, 'model'],
];

/** Rows for a `max_budget_usd` that must be a number > 0. */
const budgetRows = (): Array<[string, Body, string]> => [
  ['max_budget_usd is 0', { max_budget_usd: 0 }, 'max_budget_usd'],
  ['max_budget_usd is negative', { max_budget_usd: -1 }, 'max_budget_usd'],
  ['max_budget_usd is a string', { max_budget_usd: '1' }, 'max_budget_usd'],
];

// SPEC 4.2 chat completions (+ chat message of 2.3).
const CHAT = '/v1/chat/completions';
refuse(CHAT, [
  ...modelRows(),
  ['messages is missing', { messages: undefined }, 'messages'],
  ['messages is not an array', { messages: 'hi' }, 'messages'],
  ['messages is empty', { messages: [] }, 'messages'],
  ['a message is not an object', { messages: ['hi'] }, 'messages'],
  ['a message has no role', { messages: [{ content: 'hi' }] }, 'role'],
  ['a message role is not allowed', { messages: [{ role: 'robot', content: 'hi' }] }, 'role'],
  ['a message content is a number', { messages: [{ role: 'user', content: 5 }] }, 'content'],
  ['a message content array holds strings', { messages: [{ role: 'user', content: ['hi'] }] }, 'content'],
  ['a message tool_calls is not an array', { messages: [{ role: 'assistant', content: null, tool_calls: {} }] }, 'tool_calls'],
  ['a message tool_calls holds non-objects', { messages: [{ role: 'assistant', content: null, tool_calls: ['x'] }] }, 'tool_calls'],
  ['a message tool_call_id is not a string', { messages: [{ role: 'tool', content: 'ok', tool_call_id: 7 }] }, 'tool_call_id'],
  ['a message name is not a string', { messages: [{ role: 'user', content: 'hi', name: 7 }] }, 'name'],
  ['temperature is below 0', { temperature: -0.1 }, 'temperature'],
  ['temperature is above 2', { temperature: 2.1 }, 'temperature'],
  ['temperature is a string', { temperature: '1' }, 'temperature'],
  ['top_p is below 0', { top_p: -0.1 }, 'top_p'],
  ['top_p is above 1', { top_p: 1.1 }, 'top_p'],
  ['top_p is a string', { top_p: '0.5' }, 'top_p'],
  ['max_tokens is 0', { max_tokens: 0 }, 'max_tokens'],
  ['max_tokens is not an integer', { max_tokens: 1.5 }, 'max_tokens'],
  ['max_tokens is a string', { max_tokens: '10' }, 'max_tokens'],
  ['max_completion_tokens is 0', { max_completion_tokens: 0 }, 'max_completion_tokens'],
  ['max_completion_tokens is not an integer', { max_completion_tokens: 2.5 }, 'max_completion_tokens'],
  ['stream is a string', { stream: 'true' }, 'stream'],
  ['stream_options is not an object', { stream_options: 'yes' }, 'stream_options'],
  ['stream_options.include_usage is not a boolean', { stream_options: { include_usage: 'yes' } }, 'include_usage'],
  ['tools is not an array', { tools: {} }, 'tools'],
  ['tools holds non-objects', { tools: ['search'] }, 'tools'],
  ['parallel_tool_calls is not a boolean', { parallel_tool_calls: 'yes' }, 'parallel_tool_calls'],
]);
accept(CHAT, [
  ['temperature is 0', { temperature: 0 }],
  ['temperature is 2', { temperature: 2 }],
  ['top_p is 1', { top_p: 1 }],
  ['max_tokens is 1', { max_tokens: 1 }],
  ['content is null and extra message fields are present', { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, refusal: null }] }],
  ['content is an array of parts', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }],
  ['stream_options carries extra fields', { stream_options: { include_usage: true, extra: 1 } }],
  ['tool_choice is any value', { tool_choice: 'auto' }],
  ['unknown top-level fields are present', { user: 'u-1', metadata: { a: 1 } }],
]);

// SPEC 4.3 messages.
const MSG = '/v1/messages';
refuse(MSG, [
  ...modelRows(),
  ['messages is missing', { messages: undefined }, 'messages'],
  ['messages is not an array', { messages: 'hi' }, 'messages'],
  ['messages is empty', { messages: [] }, 'messages'],
  ['a message has no role', { messages: [{ content: 'hi' }] }, 'role'],
  ['a message has no content', { messages: [{ role: 'user' }] }, 'content'],
  ['a message role is tool', { messages: [{ role: 'tool', content: 'hi' }] }, 'role'],
  ['a message content is null', { messages: [{ role: 'user', content: null }] }, 'content'],
  ['a message content is a number', { messages: [{ role: 'user', content: 5 }] }, 'content'],
  ['a message content array holds strings', { messages: [{ role: 'user', content: ['hi'] }] }, 'content'],
  ['max_tokens is missing', { max_tokens: undefined }, 'max_tokens'],
  ['max_tokens is 0', { max_tokens: 0 }, 'max_tokens'],
  ['max_tokens is not an integer', { max_tokens: 1.5 }, 'max_tokens'],
  ['max_tokens is a string', { max_tokens: '16' }, 'max_tokens'],
  ['stream is a string', { stream: 'yes' }, 'stream'],
  ['temperature is below 0', { temperature: -0.1 }, 'temperature'],
  ['temperature is above 1', { temperature: 1.5 }, 'temperature'],
  ['temperature is a string', { temperature: '0.5' }, 'temperature'],
  ['top_p is below 0', { top_p: -0.1 }, 'top_p'],
  ['top_p is above 1', { top_p: 1.1 }, 'top_p'],
  ['stop_sequences is not an array', { stop_sequences: 'END' }, 'stop_sequences'],
  ['stop_sequences holds non-strings', { stop_sequences: [1] }, 'stop_sequences'],
  ['tools is not an array', { tools: {} }, 'tools'],
  ['tools holds non-objects', { tools: ['search'] }, 'tools'],
  ['tool_choice is not an object', { tool_choice: 'auto' }, 'tool_choice'],
]);
accept(MSG, [
  ['temperature is 1', { temperature: 1 }],
  ['a system message and block content are used', { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }] }],
  ['system is any value', { system: [{ type: 'text', text: 'be brief' }] }],
  ['tool_choice is an object', { tool_choice: { type: 'auto' } }],
]);

// SPEC 4.4 responses.
const RESP = '/v1/responses';
refuse(RESP, [
  ...modelRows(),
  ['neither input nor messages is given', { input: undefined }, 'input'],
  ['messages is not an array', { input: undefined, messages: 'hi' }, 'messages'],
  ['a message role is not allowed', { input: undefined, messages: [{ role: 'robot', content: 'hi' }] }, 'role'],
  ['a message has no role', { input: undefined, messages: [{ content: 'hi' }] }, 'role'],
  ['instructions is not a string', { instructions: 5 }, 'instructions'],
  ['modalities has 2 items', { modalities: ['text', 'image'] }, 'modalities'],
  ['modalities holds an unknown modality', { modalities: ['smell'] }, 'modalities'],
  ['modalities is not an array', { modalities: 'text' }, 'modalities'],
  ['temperature is above 2', { temperature: 2.5 }, 'temperature'],
  ['temperature is below 0', { temperature: -1 }, 'temperature'],
  ['top_p is above 1', { top_p: 1.5 }, 'top_p'],
  ['top_p is below 0', { top_p: -0.5 }, 'top_p'],
  ['max_output_tokens is 0', { max_output_tokens: 0 }, 'max_output_tokens'],
  ['max_output_tokens is not an integer', { max_output_tokens: 1.5 }, 'max_output_tokens'],
  ['stream is a string', { stream: 'true' }, 'stream'],
  ['store is not a boolean', { store: 'yes' }, 'store'],
  ['background is not a boolean', { background: 'yes' }, 'background'],
  ['service_tier is not allowed', { service_tier: 'turbo' }, 'service_tier'],
  ...budgetRows(),
  ['reasoning is not an object', { reasoning: 'high' }, 'reasoning'],
  ['reasoning.effort is not allowed', { reasoning: { effort: 'extreme' } }, 'effort'],
  ['reasoning.summary is not allowed', { reasoning: { summary: 'long' } }, 'summary'],
  ['reasoning.mode is not a string', { reasoning: { mode: 5 } }, 'mode'],
  ['speech_config is not an object', { speech_config: 'x' }, 'speech_config'],
  ['image_config is not an object', { image_config: 'x' }, 'image_config'],
]);
accept(RESP, [
  ['only messages is given', { input: undefined, messages: [{ role: 'user', content: 'hi' }] }],
  ['input is an array of items', { input: [{ role: 'user', content: 'hi' }] }],
  ['modalities has 1 item', { modalities: ['text'] }],
  ['reasoning uses every documented value and extra fields', { reasoning: { effort: 'xhigh', summary: 'concise', mode: 'deep', budget: 100 } }],
  ['service_tier is flex', { service_tier: 'flex' }],
  ['max_budget_usd is tiny but positive', { max_budget_usd: 0.0001 }],
]);

// SPEC 4.5 image generations.
const IMG = '/v1/images/generations';
refuse(IMG, [
  ...modelRows(),
  ['prompt is missing', { prompt: undefined }, 'prompt'],
  ['prompt is empty', { prompt: '' }, 'prompt'],
  ['prompt is not a string', { prompt: 5 }, 'prompt'],
  ['image_url is not a string', { image_url: 5 }, 'image_url'],
  ['image_urls is not an array', { image_urls: 'https://example.com/a.png' }, 'image_urls'],
  ['image_urls holds non-strings', { image_urls: [1] }, 'image_urls'],
  ['file_id is not a string', { file_id: 5 }, 'file_id'],
  ['file_ids is not an array', { file_ids: 'file-1' }, 'file_ids'],
  ['file_ids holds non-strings', { file_ids: [1] }, 'file_ids'],
  ['n is 0', { n: 0 }, 'n'],
  ['n is 7', { n: 7 }, 'n'],
  ['n is not an integer', { n: 1.5 }, 'n'],
  ['n is a string', { n: '2' }, 'n'],
  ['size is not a string', { size: 1024 }, 'size'],
  ['resolution is not allowed', { resolution: '4k' }, 'resolution'],
  ['aspect_ratio is not a string', { aspect_ratio: 1.5 }, 'aspect_ratio'],
  ['quality is not allowed', { quality: 'ultra' }, 'quality'],
  ['creativity is not allowed', { creativity: 'wild' }, 'creativity'],
  ['seed is not an integer', { seed: 1.5 }, 'seed'],
  ['output_format is not allowed', { output_format: 'gif' }, 'output_format'],
  ['response_format is not allowed', { response_format: 'base64' }, 'response_format'],
  ['background is not allowed', { background: 'black' }, 'background'],
  ['mask is not a string', { mask: 5 }, 'mask'],
  ...budgetRows(),
]);
accept(IMG, [
  ['n is 1', { n: 1 }],
  ['n is 6', { n: 6 }],
  ['resolution is 2K', { resolution: '2K' }],
  ['every enum takes a documented value', { quality: 'high', creativity: 'raw', output_format: 'webp', response_format: 'b64_json', background: 'transparent' }],
]);

// SPEC 4.6 image edits (three image-input forms).
const EDIT = '/v1/images/edits';
refuse(EDIT, [
  ...modelRows(),
  ['prompt is missing', { prompt: undefined }, 'prompt'],
  ['prompt is empty', { prompt: '' }, 'prompt'],
  ['neither image nor images is given', { image: undefined }, 'image'],
  ['image is a string that is not a URI', { image: 'not a uri' }, 'image'],
  ['image is a relative path', { image: '/cat.png' }, 'image'],
  ['image is a number', { image: 5 }, 'image'],
  ['image is an object without url', { image: { href: 'https://example.com/a.png' } }, 'image'],
  ['image is an object whose url is not a URI', { image: { url: 'not a uri' } }, 'image'],
  ['image is an image_url object whose url is not a URI', { image: { type: 'image_url', url: 'nope' } }, 'image'],
  ['image is an image_url object whose url is not a string', { image: { type: 'image_url', url: 5 } }, 'image'],
  ['images is empty', { image: undefined, images: [] }, 'images'],
  ['images has 6 items', { image: undefined, images: Array.from({ length: 6 }, () => PNG_DATA_URI) }, 'images'],
  ['images is not an array', { image: undefined, images: PNG_DATA_URI }, 'images'],
  ['images holds a malformed image input', { image: undefined, images: [PNG_DATA_URI, 'not a uri'] }, 'images'],
  ['aspect_ratio is not a string', { aspect_ratio: 1 }, 'aspect_ratio'],
  ['resolution is not allowed', { resolution: '3k' }, 'resolution'],
  ['response_format is not allowed', { response_format: 'png' }, 'response_format'],
  ...budgetRows(),
]);
accept(EDIT, [
  ['image is a URI string', { image: PNG_DATA_URI }],
  ['image is an object with url', { image: { url: PNG_DATA_URI } }],
  ['image is an image_url object', { image: { type: 'image_url', url: PNG_DATA_URI } }],
  ['only images is given, mixing the three forms', { image: undefined, images: [PNG_DATA_URI, { url: PNG_DATA_URI }, { type: 'image_url', url: PNG_DATA_URI }] }],
  ['images has 5 items', { image: undefined, images: Array.from({ length: 5 }, () => PNG_DATA_URI) }],
]);

// SPEC 4.7 speech.
const SPEECH = '/v1/audio/speech';
refuse(SPEECH, [
  ...modelRows(),
  ['input is missing', { input: undefined }, 'input'],
  ['input is empty', { input: '' }, 'input'],
  ['input is not a string', { input: 5 }, 'input'],
  ['voice is not a string', { voice: 1 }, 'voice'],
  ['language is not a string', { language: 1 }, 'language'],
  ['speaker is not a string', { speaker: 1 }, 'speaker'],
  ...budgetRows(),
]);

// SPEC 4.8 music.
const MUSIC = '/v1/audio/music';
refuse(MUSIC, [
  ...modelRows(),
  ['input is missing', { input: undefined }, 'input'],
  ['input is empty', { input: '' }, 'input'],
  ['input is not a string', { input: ['piano'] }, 'input'],
  ...budgetRows(),
]);

// SPEC 4.9 transcriptions.
const STT = '/v1/audio/transcriptions';
refuse(STT, [
  ...modelRows(),
  ['neither audio_base64 nor file_id is given', { audio_base64: undefined }, 'audio_base64'],
  ['audio_base64 is not base64', { audio_base64: 'this is not base64!' }, 'audio_base64'],
  ['audio_base64 is a data URI', { audio_base64: `data:audio/wav;base64,${WAV}` }, 'audio_base64'],
  ['audio_base64 is not a string', { audio_base64: 5 }, 'audio_base64'],
  ['audio_format is not a string', { audio_format: 1 }, 'audio_format'],
  ['file_id is not a string', { audio_base64: undefined, file_id: 1 }, 'file_id'],
  ['prompt is not a string', { prompt: 1 }, 'prompt'],
  ['language is not a string', { language: 1 }, 'language'],
  ['format is not a boolean', { format: 'yes' }, 'format'],
  ['duration_seconds is 0', { duration_seconds: 0 }, 'duration_seconds'],
  ['duration_seconds is negative', { duration_seconds: -1 }, 'duration_seconds'],
  ['duration_seconds is a string', { duration_seconds: '3' }, 'duration_seconds'],
  ...budgetRows(),
]);
accept(STT, [
  ['only file_id is given', { audio_base64: undefined, file_id: 'file-does-not-matter' }],
  ['duration_seconds is a fraction', { duration_seconds: 0.1 }],
]);

// SPEC 4.10 research.
const RESEARCH = '/v1/research/runs';
refuse(RESEARCH, [
  ...modelRows(),
  ['input is missing', { input: undefined }, 'input'],
  ['input is a number', { input: 5 }, 'input'],
  ['input is an array of strings', { input: ['hi'] }, 'input'],
  ['an input message role is not allowed', { input: [{ role: 'robot', content: 'hi' }] }, 'role'],
  ['an input message has no role', { input: [{ content: 'hi' }] }, 'role'],
  ['instructions is not a string', { instructions: 5 }, 'instructions'],
  ['max_output_tokens is 0', { max_output_tokens: 0 }, 'max_output_tokens'],
  ['max_output_tokens is not an integer', { max_output_tokens: 1.5 }, 'max_output_tokens'],
  ...budgetRows(),
]);
accept(RESEARCH, [
  ['input is an array of chat messages', { input: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'why?' }] }],
]);

// SPEC 4.11 robotics.
const ROBOT = '/v1/robotics/sessions';
refuse(ROBOT, [
  ...modelRows(),
  ['neither input nor messages is given', { input: undefined }, 'input'],
  ['messages is not an array', { input: undefined, messages: 'hi' }, 'messages'],
  ['a message role is not allowed', { input: undefined, messages: [{ role: 'robot', content: 'hi' }] }, 'role'],
  ['a message content is a number', { input: undefined, messages: [{ role: 'user', content: 5 }] }, 'content'],
  ...budgetRows(),
]);
accept(ROBOT, [
  ['only messages is given', { input: undefined, messages: [{ role: 'user', content: 'pick up the cube' }] }],
  ['input is an object', { input: { scene: 'table', goal: 'stack' } }],
]);

// SPEC 4.12 embeddings.
const EMB = '/v1/embeddings';
refuse(EMB, [
  ...modelRows(),
  ['input is missing', { input: undefined }, 'input'],
  ['output_dimensionality is 0', { output_dimensionality: 0 }, 'output_dimensionality'],
  ['output_dimensionality is not an integer', { output_dimensionality: 1.5 }, 'output_dimensionality'],
  ['dimensions is 0', { dimensions: 0 }, 'dimensions'],
  ['dimensions is a string', { dimensions: '8' }, 'dimensions'],
  ['output_dimension is 0', { output_dimension: 0 }, 'output_dimension'],
  ['input_type is not allowed', { input_type: 'passage' }, 'input_type'],
  ['output_dtype is not allowed', { output_dtype: 'float16' }, 'output_dtype'],
  ['truncation is not a boolean', { truncation: 'yes' }, 'truncation'],
  ['encoding_format is not a string', { encoding_format: 5 }, 'encoding_format'],
]);
accept(EMB, [
  ['input is an array and dimensions is 1', { input: ['a', 'b'], dimensions: 1 }],
  ['input_type and output_dtype take documented values', { input_type: 'document', output_dtype: 'ubinary' }],
]);

// SPEC 4.13 rerank (no additional properties).
const RERANK = '/v1/rerank';
refuse(RERANK, [
  ...modelRows(),
  ['query is missing', { query: undefined }, 'query'],
  ['query is empty', { query: '' }, 'query'],
  ['query is not a string', { query: 5 }, 'query'],
  ['documents is missing', { documents: undefined }, 'documents'],
  ['documents is empty', { documents: [] }, 'documents'],
  ['documents has 1001 items', { documents: Array.from({ length: 1001 }, (_, i) => `doc ${i}`) }, 'documents'],
  ['a document is empty', { documents: ['ok', ''] }, 'documents'],
  ['a document is not a string', { documents: [1] }, 'documents'],
  ['documents is not an array', { documents: 'a cat' }, 'documents'],
  ['top_k is 0', { top_k: 0 }, 'top_k'],
  ['top_k is not an integer', { top_k: 1.5 }, 'top_k'],
  ['top_n is 0', { top_n: 0 }, 'top_n'],
  ['return_documents is not a boolean', { return_documents: 'yes' }, 'return_documents'],
  ['truncation is not a boolean', { truncation: 'yes' }, 'truncation'],
  ['an unknown field is present', { rank_fields: ['text'] }, 'rank_fields'],
]);
accept(RERANK, [
  ['documents has 1000 items and top_n is 1', { documents: Array.from({ length: 1000 }, (_, i) => `doc ${i}`), top_n: 1 }],
]);

// SPEC 4.14 video.
const VIDEO = '/v1/video/generations';
const MEDIA = { type: 'image', url: PNG_DATA_URI };
refuse(VIDEO, [
  ...modelRows(),
  ['duration_seconds is missing', { duration_seconds: undefined }, 'duration_seconds'],
  ['duration_seconds is 0', { duration_seconds: 0 }, 'duration_seconds'],
  ['duration_seconds is negative', { duration_seconds: -4 }, 'duration_seconds'],
  ['duration_seconds is a string', { duration_seconds: '4' }, 'duration_seconds'],
  ['neither prompt nor media is given', { prompt: undefined }, 'prompt'],
  ['prompt is empty', { prompt: '' }, 'prompt'],
  ['aspect_ratio is not a string', { aspect_ratio: 1 }, 'aspect_ratio'],
  ['resolution is not a string', { resolution: 720 }, 'resolution'],
  ['negative_prompt is not a string', { negative_prompt: 1 }, 'negative_prompt'],
  ['image_url is not a string', { image_url: 1 }, 'image_url'],
  ['media is empty', { prompt: undefined, media: [] }, 'media'],
  ['media has 9 items', { media: Array.from({ length: 9 }, () => MEDIA) }, 'media'],
  ['media is not an array', { media: MEDIA }, 'media'],
  ['a media item is not an object', { media: ['https://example.com/a.png'] }, 'media'],
  ['a media item has no type', { media: [{ url: PNG_DATA_URI }] }, 'media'],
  ['a media item has no url', { media: [{ type: 'image' }] }, 'media'],
  ['a media item type is not a string', { media: [{ type: 1, url: PNG_DATA_URI }] }, 'media'],
  ['a media item url is not a string', { media: [{ type: 'image', url: 1 }] }, 'media'],
  ['max_wait_seconds is 0', { max_wait_seconds: 0 }, 'max_wait_seconds'],
  ['max_wait_seconds is not an integer', { max_wait_seconds: 1.5 }, 'max_wait_seconds'],
  ...budgetRows(),
]);
accept(VIDEO, [
  ['only media is given', { prompt: undefined, media: [MEDIA] }],
  ['media has 8 items', { media: Array.from({ length: 8 }, () => MEDIA) }],
  ['duration_seconds is a fraction', { duration_seconds: 0.5 }],
]);

// SPEC 4.15 realtime.
const RT = '/v1/realtime/sessions';
refuse(RT, [
  ...modelRows(),
  ['max_duration_seconds is missing', { max_duration_seconds: undefined }, 'max_duration_seconds'],
  ['max_duration_seconds is 0', { max_duration_seconds: 0 }, 'max_duration_seconds'],
  ['max_duration_seconds is negative', { max_duration_seconds: -1 }, 'max_duration_seconds'],
  ['max_duration_seconds is above 3600', { max_duration_seconds: 3601 }, 'max_duration_seconds'],
  ['max_duration_seconds is a string', { max_duration_seconds: '60' }, 'max_duration_seconds'],
  ['max_budget_usd is missing', { max_budget_usd: undefined }, 'max_budget_usd'],
  ...budgetRows(),
]);
accept(RT, [['max_duration_seconds is 3600', { max_duration_seconds: 3600 }]]);

// SPEC 4.16 files, JSON encoding (no additional properties).
const FILES = '/v1/files';
refuse(FILES, [
  ['content_base64 is missing', { content_base64: undefined }, 'content_base64'],
  ['content_base64 is not base64', { content_base64: 'not base64!' }, 'content_base64'],
  ['content_base64 is not a string', { content_base64: 5 }, 'content_base64'],
  ['filename is not a string', { filename: 5 }, 'filename'],
  ['mime_type is not a string', { mime_type: 5 }, 'mime_type'],
  ['provider is not a string', { provider: 5 }, 'provider'],
  ['provider is empty', { provider: '' }, 'provider'],
  ['purpose is not allowed', { purpose: 'fine-tune' }, 'purpose'],
  ['an unknown field is present', { model: 'sandbox/echo-1' }, 'model'],
]);
accept(FILES, [
  ['purpose is vision_reference', { purpose: 'vision_reference', mime_type: 'image/png', content_base64: PNG_DATA_URI.split(',')[1] }],
  ['only content_base64 is given', { filename: undefined, mime_type: undefined }],
]);

/** Every rule violation of every POST JSON route. */
export const RULE_CASES: readonly RuleCase[] = cases;

/** Bodies at the edges of the rules that must pass validation. */
export const ACCEPT_CASES: readonly AcceptCase[] = accepts;

/** The POST JSON routes, in SPEC 4.1 order. */
export const POST_ROUTES: readonly string[] = Object.keys(VALID_BODIES);
