import type { OperationCall, OperationResult, ProviderImplementation } from '../types.js';
import { composeMusic } from './audio-music.js';
import { synthesizeSpeech } from './audio-speech.js';
import { transcribeAudio } from './audio-transcriptions.js';
import { createEmbeddings } from './embeddings.js';
import { editImages } from './images-edits.js';
import { generateImages } from './images-generations.js';
import { createRealtimeSession } from './realtime-sessions.js';
import { rerankDocuments } from './rerank.js';
import { compactConversation } from './responses-compact.js';
import { sandboxTextBackend } from './text-backend.js';
import { pollVideo } from './video-poll.js';
import { generateVideo } from './video-generations.js';

/** Serves a sandbox realtime session on a verified, upgraded WebSocket (see realtime-session.ts). */
export { runSandboxRealtimeSession } from './realtime-session.js';

/** The sandbox's non-text operations, keyed by operation name. */
const operations: Record<string, (call: OperationCall) => Promise<OperationResult>> = {
  'images.generations': generateImages,
  'images.edits': editImages,
  'audio.speech': synthesizeSpeech,
  'audio.music': composeMusic,
  'audio.transcriptions': transcribeAudio,
  'embeddings': createEmbeddings,
  'rerank': rerankDocuments,
  'video.generations': generateVideo,
  'video.generations.poll': pollVideo,
  'realtime.sessions': createRealtimeSession,
  'responses.compact': compactConversation,
};

/**
 * The built-in offline provider (`type: sandbox` in gateway.yaml): every operation of the API,
 * served locally and deterministically (same input -> same output; ids of jobs and realtime
 * sessions excepted), so `npm start` works on a fresh machine with no keys and no network.
 */
export const sandboxProvider: ProviderImplementation = {
  type: 'sandbox',
  text: sandboxTextBackend,
  operations,
};
