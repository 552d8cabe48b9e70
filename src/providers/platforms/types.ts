import type { DialectRequest } from '../../codecs/codec.js';
import type { OperationCall, Placement, UpstreamAccess } from '../types.js';

export type { Placement } from '../types.js';

/** Rewrites a dialect's request for a platform: path, body envelope, headers. */
export type RequestShaper = (req: DialectRequest, call: OperationCall) => DialectRequest;

/**
 * A cloud that serves a wire format (`providers.<name>.platform`): how its URLs, body envelope
 * and default host differ from the format's own API. The dialect codecs stay untouched: the
 * platform reshapes what they encode, and credentials come from the provider's `auth` block.
 */
export interface Platform {
  readonly name: 'vertex' | 'azure' | 'bedrock';
  /** Provider types (dialects) the platform serves. */
  readonly types: readonly string[];
  /** `auth.type`s it accepts (the first is the default when `auth` is omitted). */
  readonly authTypes: readonly string[];
  /** Provider settings it needs (lint: `project` on Vertex, `region` on Bedrock). */
  readonly requires: ReadonlyArray<'project' | 'region'>;
  /** The host when neither base_url nor base_url_env gives one (Vertex: the location's). */
  defaultBaseUrl?(place: Placement): string | undefined;
  /** A setting the provider lacks before it can be used, written to follow "set ..."; undefined = none. */
  missing?(place: Placement, provider: string): string | undefined;
  /** The request shaper of one deployment of a provider type. */
  shaper(type: string, place: Placement): RequestShaper | undefined;
  /** How a provider type's 2xx answers are read on this platform (UpstreamAccess.answer), when they differ. */
  answer?(type: string): UpstreamAccess['answer'];
  /** How error answers are read on this platform (UpstreamAccess.failure), when they differ. */
  failure?: UpstreamAccess['failure'];
}
