import type { ProviderSpec } from '../../config/types.js';
import { azurePlatform } from './azure.js';
import { bedrockPlatform } from './bedrock.js';
import type { Platform } from './types.js';
import { vertexPlatform } from './vertex.js';

/** Every `platform:` name and its implementation. */
export const platforms: ReadonlyMap<string, Platform> = new Map([vertexPlatform, azurePlatform, bedrockPlatform].map((p) => [p.name, p]));

/** Provider types that exist on one platform only (their `platform:` may be left out). */
export const impliedPlatforms: ReadonlyMap<string, Platform['name']> = new Map([['bedrock-converse', 'bedrock']]);

/** The platform of a provider: the one it names, else the one its type implies. */
export function platformOf(spec: ProviderSpec): Platform | undefined {
  const name = spec.platform ?? impliedPlatforms.get(spec.type);
  return name ? platforms.get(name) : undefined;
}
