/**
 * Converse takes images and documents as bytes, never URLs: before a Converse call, http(s) image
 * URLs of the conversation (user turns and tool results) are fetched with the gateway's media
 * fetcher (SSRF rules, size and time limits: `limits.fetch`) and sent as base64. A fetch that
 * fails answers the fetcher's 400 (`fetch_failed`, `url_not_allowed` ...). Conversations without
 * such URLs are returned as they are, without a copy.
 */
import type { Conversation, ImagePart, Message, Part } from '../../codecs/internal.js';
import type { OperationCall, TextBackend } from '../types.js';
import { abortSignalOf } from '../../upstream/request-abort.js';

const isRemote = (p: Part): p is ImagePart => p.type === 'image' && p.source.kind === 'url' && /^https?:\/\//i.test(p.source.url);

function holdsRemote(message: Message): boolean {
  return message.parts.some((p) => isRemote(p) || (p.type === 'tool_result' && Array.isArray(p.content) && p.content.some(isRemote)));
}

/** The conversation with its http(s) image URLs fetched into base64 images. */
export async function inlineImageUrls(request: Conversation, call: OperationCall): Promise<Conversation> {
  if (!request.messages.some(holdsRemote)) return request;
  const signal = abortSignalOf(call.signal);
  const fetched = new Map<string, Promise<ImagePart['source']>>();
  const inline = (part: ImagePart): Promise<ImagePart> => {
    const url = (part.source as { url: string }).url;
    let source = fetched.get(url);
    if (!source) {
      source = call.services.fetchMedia(url, signal).then(({ bytes, contentType }) => ({ kind: 'base64' as const, mediaType: contentType.split(';')[0]!.trim(), data: Buffer.from(bytes).toString('base64') }));
      fetched.set(url, source);
    }
    return source.then((s) => ({ ...part, source: s }));
  };
  const messages = await Promise.all(request.messages.map(async (m): Promise<Message> => {
    if (!holdsRemote(m)) return m;
    const parts = await Promise.all(m.parts.map(async (p): Promise<Part> => {
      if (isRemote(p)) return inline(p);
      if (p.type === 'tool_result' && Array.isArray(p.content)) return { ...p, content: await Promise.all(p.content.map((c) => (isRemote(c) ? inline(c) : c))) };
      return p;
    }));
    return { ...m, parts };
  }));
  return { ...request, messages };
}

/** A text backend whose conversations have their image URLs fetched first (Converse). */
export function withInlineImages(backend: TextBackend): TextBackend {
  return {
    complete: async (request, call) => backend.complete(await inlineImageUrls(request, call), call),
    async *stream(request, call) {
      yield* backend.stream(await inlineImageUrls(request, call), call);
    },
  };
}
