import type { DialectCodec, SurfaceCodec } from '../codecs/codec.js';
import { anthropicMessagesDialect, anthropicMessagesSurface } from '../codecs/anthropic-messages/index.js';
import { bedrockConverseDialect } from '../codecs/bedrock-converse/index.js';
import { geminiDialect } from '../codecs/gemini/index.js';
import { openAiChatDialect, openAiChatSurface } from '../codecs/openai-chat/index.js';
import { openAiResponsesDialect, openAiResponsesSurface } from '../codecs/openai-responses/index.js';
import { researchSurface } from '../codecs/research/index.js';
import { roboticsSurface } from '../codecs/robotics/index.js';
import type { ProviderSpec } from '../config/types.js';
import type { ProviderTypeInfo, Vocabulary } from '../config/vocabulary.js';
import { compileProviderMappings } from '../mapping/compile-mapping.js';
import { transports } from '../mapping/transports/index.js';
import { runSandboxRealtimeSession, sandboxProvider } from '../providers/sandbox/index.js';
import type { ProviderImplementation, TextBackend } from '../providers/types.js';
import { impliedPlatforms, platforms } from '../providers/platforms/index.js';
import { authTypes } from '../providers/auth/registry.js';
import { createDialectBackend } from '../providers/dialect-backend.js';
import { withInlineImages } from '../providers/bedrock/inline-images.js';

/**
 * Named behaviour: every name YAML may use (provider types, surfaces, handlers) and the
 * TypeScript that implements it. Adding a dialect = one entry here, never per-model code.
 */

/** Client text formats, by the name route files use in `surface:`. */
export const surfaces: ReadonlyMap<string, SurfaceCodec> = new Map(
  [openAiChatSurface, anthropicMessagesSurface, openAiResponsesSurface, researchSurface, roboticsSurface].map((s) => [s.name, s]),
);

/** Upstream text wire formats, by provider `type`. */
export const dialects: ReadonlyMap<string, DialectCodec> = new Map(
  [openAiChatDialect, anthropicMessagesDialect, geminiDialect, openAiResponsesDialect, bedrockConverseDialect].map((d) => [d.name, d]),
);

// Converse takes images as bytes only: its calls fetch image URLs first.
const dialectBackends = new Map<string, TextBackend>([...dialects].map(([name, d]) => [name, name === bedrockConverseDialect.name ? withInlineImages(createDialectBackend(d)) : createDialectBackend(d)]));

/** Route handlers, by the name route files use in `handler:`. Implemented in src/server/handlers. */
export const handlerNames: ReadonlySet<string> = new Set(['model-call', 'list-models', 'get-model', 'upload-file', 'poll-job', 'get-response', 'list-files', 'get-file', 'get-file-content', 'delete-file', 'health', 'readiness', 'metrics', 'openapi', 'docs', 'docs-asset', 'admin', 'usage-report', 'dashboard', 'proxy']);

/** Mapping transports usable in YAML operation mappings (src/mapping/transports). */
export const transportNames: ReadonlySet<string> = new Set<string>(transports.keys());

const anthropicOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    anthropic_version: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    default_max_tokens: { type: 'integer', minimum: 1 },
    beta: { type: 'array', items: { type: 'string' } },
    /** `budget` for older Claude models that reject adaptive thinking. */
    thinking_mode: { enum: ['adaptive', 'budget'] },
  },
};
const openAiOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    organization: { type: 'string' },
    project: { type: 'string' },
    /** Which output-limit field the upstream takes (older OpenAI-compatible servers: max_tokens). */
    max_tokens_field: { enum: ['max_completion_tokens', 'max_tokens'] },
    /** Role used for system instructions. */
    system_role: { enum: ['system', 'developer'] },
    /** Send assistant thinking back as `reasoning_content` (DeepSeek style). */
    reasoning_content: { type: 'boolean' },
  },
};

const sandbox: ProviderImplementation = { ...sandboxProvider, openRealtime: (socket, claims) => runSandboxRealtimeSession(socket, claims) };

/** The implementation behind a provider type. */
export function implementationOf(type: string): ProviderImplementation | undefined {
  if (type === 'sandbox') return sandbox;
  if (type === 'http') return { type };
  const text = dialectBackends.get(type);
  return text ? { type, text } : undefined;
}

/**
 * The implementation of one configured provider: its type's native operations plus the
 * operations compiled from its YAML mappings (`providers.<name>.operations`). A mapping that
 * names no `auth` uses the type's own auth headers (a dialect's), else `Authorization: Bearer`.
 * Throws MappingCompileError (with the mapping's data path) when a mapping cannot compile.
 */
export function implementationFor(name: string, spec: ProviderSpec): ProviderImplementation | undefined {
  const native = implementationOf(spec.type);
  if (!native || !spec.operations || Object.keys(spec.operations).length === 0) return native;
  const dialect = dialects.get(spec.type);
  const mapped = compileProviderMappings(name, spec, dialect ? (key, options) => dialect.authHeaders(key, options) : undefined);
  return {
    ...native,
    operations: { ...(native.operations ?? {}), ...mapped.operations },
    ...(mapped.openRealtime ? { openRealtime: mapped.openRealtime } : {}),
  };
}

/** What lint and compile may know about each provider type. */
export function providerTypeInfo(): Map<string, ProviderTypeInfo> {
  const info = new Map<string, ProviderTypeInfo>();
  info.set('sandbox', { text: true, operations: new Set(Object.keys(sandboxProvider.operations ?? {})), mappedOperations: false, needsKey: false });
  info.set('http', { text: false, operations: new Set(), mappedOperations: true, needsKey: true, optionsSchema: { type: 'object' } });
  for (const name of dialects.keys()) {
    const optionsSchema = name === 'anthropic-messages' ? anthropicOptions : name.startsWith('openai') ? openAiOptions : { type: 'object' };
    const platform = impliedPlatforms.get(name);
    info.set(name, { text: true, operations: new Set(), mappedOperations: true, needsKey: true, optionsSchema, ...(platform ? { platform } : {}) });
  }
  return info;
}

/** The full vocabulary for config checks. */
export function vocabulary(): Vocabulary {
  return { providerTypes: providerTypeInfo(), platforms, authTypes: new Set(authTypes), handlers: handlerNames, surfaces: new Set(surfaces.keys()), transports: transportNames };
}
