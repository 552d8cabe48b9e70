import { readFile } from 'node:fs/promises';
import { decodeBase64Strict } from '../codecs/shared/base64.js';
import { errors } from '../errors/gateway-error.js';
import { MediaValue } from '../mapping/media.js';
import type { ResolvedProvider } from '../compile/runtime.js';
import type { FileContent, FileRecord, OperationCall } from '../providers/types.js';
import type { GatewayState } from './state.js';

/**
 * POST /v1/files in either encoding (SPEC 4.16): multipart `file` part or JSON
 * `content_base64`. Defaults: filename `upload.bin`, mime type `application/octet-stream`,
 * purpose `user_upload`, provider from `files.default_provider`. The gateway keeps the bytes;
 * a provider with a `files` operation also receives them and its file id is recorded. Returns
 * the record as the client sees it.
 */
export async function storeUploadedFile(gw: GatewayState): Promise<Record<string, unknown>> {
  const { config } = gw.runtime;
  const fields = gw.body;
  let content: FileContent;
  let filename: string;
  let mimeType: string;
  if (gw.files !== undefined) {
    // The body step streamed the part to a temp file and removes it when the request ends;
    // the store moves or streams it from there, so a large upload is never held in memory.
    const part = gw.files.find((f) => f.field === 'file');
    if (!part) throw errors.validation('Invalid request: file is required.', [{ field: 'file', rule: 'required', message: 'file is required' }]);
    content = { path: part.path, size: part.size };
    filename = part.filename;
    mimeType = part.mimeType;
  } else {
    const decoded = decodeBase64Strict(String(fields.content_base64));
    if (!decoded) throw errors.invalidRequest("'content_base64' is not valid base64 (bad character, padding or length).", 'invalid_base64', { field: 'content_base64' });
    content = decoded;
    filename = typeof fields.filename === 'string' ? fields.filename : 'upload.bin';
    mimeType = typeof fields.mime_type === 'string' ? fields.mime_type : 'application/octet-stream';
  }
  const size = content instanceof Uint8Array ? content.byteLength : content.size;
  if (size > config.files.max_bytes) throw errors.bodyTooLarge(config.files.max_bytes);
  const providerName = typeof fields.provider === 'string' ? fields.provider : config.files.default_provider;
  const provider = gw.runtime.providers.get(providerName);
  if (!provider) throw errors.invalidRequest(`Unknown provider '${providerName}' for file upload.`, 'unknown_provider', { provider: providerName });
  if (provider.missing) throw errors.providerNotConfigured(provider.name, provider.missing);
  const purpose = typeof fields.purpose === 'string' ? fields.purpose : 'user_upload';
  const providerFileId = await forwardToProvider(gw, provider, content, { filename, mime_type: mimeType, purpose });
  const record = await gw.services.files.put({ filename, mime_type: mimeType, purpose, provider: providerName, owner: gw.owner, ...(providerFileId ? { provider_file_id: providerFileId } : {}) }, content, gw.abort.signal);
  return publicRecord(record);
}

/**
 * Sends the upload to the provider's own files API when it has one (a `files` operation, e.g.
 * OpenAI's multipart /files) and returns the provider's file id. Its failure fails the upload,
 * so a client never holds a file id the provider does not know.
 */
async function forwardToProvider(gw: GatewayState, provider: ResolvedProvider, content: FileContent, fields: { filename: string; mime_type: string; purpose: string }): Promise<string | undefined> {
  const operation = provider.impl.operations?.[gw.route.spec.operation];
  if (!operation) return undefined;
  const bytes = content instanceof Uint8Array ? content : new Uint8Array(await readFile(content.path));
  const call: OperationCall = {
    operation: gw.route.spec.operation,
    body: { file: new MediaValue(bytes, fields.mime_type, fields.filename), ...fields },
    model: { id: `${provider.name}/files`, provider: provider.name, endpoints: [] },
    providerName: provider.name,
    provider: provider.spec,
    apiKey: provider.apiKey,
    baseUrl: provider.baseUrl,
    signal: gw.abort.signal,
    timeoutMs: provider.spec.timeout_ms ?? gw.runtime.config.server.upstream_timeout_ms ?? 60_000,
    owner: gw.owner,
    services: gw.services,
  };
  const result = await operation(call);
  const id = result.kind === 'json' ? result.body.id : undefined;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** The record as clients see it (the owner hash and the order key stay inside the gateway). */
export function publicRecord(record: FileRecord): Record<string, unknown> {
  const { owner: _owner, created_ms: _ms, ...visible } = record;
  return { ...visible, status: 'uploaded' };
}
