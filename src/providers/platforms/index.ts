import type { ProviderSpec } from '../../config/types.js';
import { azurePlatform } from './azure.js';
import { bedrockPlatform } from './bedrock.js';
import type { Platform } from './types.js';
import { vertexPlatform } from './vertex.js';

/** Every `platform:` name and its implementation. */
export const platforms: ReadonlyMap<string, Platform> = new Map([vertexPlatform, azurePlatform, bedrockPlatform].map((p) => [p.name, p]));

/** The platform of a provider, when it names one. */
export function platformOf(spec: ProviderSpec): Platform | undefined {
  return spec.platform ? platforms.get(spec.platform) : undefined;
}
