/**
 * Lint warnings for Bedrock model ids and regions. Newer models are served only through
 * cross-Region inference profiles, whose ids carry a geography prefix (`us.`, `eu.`, `apac.`,
 * `jp.`, `au.`, `us-gov.`, `global.`): the bare id answers "on-demand throughput isn't
 * supported" (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html).
 * A prefixed profile is callable only from the Regions of its geography (`global.` from any).
 */
import type { Diagnostic } from './diagnostics.js';
import { upstreamNameOf } from './model-name.js';
import type { GatewayConfig, ProviderSpec } from './types.js';
import { locate, type YamlSource } from './yaml-source.js';

const GEO_PREFIX = /^(us-gov|us|eu|apac|jp|au|ca|global)\./;

/**
 * Foundation models Bedrock offers through inference profiles only (checked against the support
 * table at the time of writing; newer families follow the same rule, older ones also run on demand).
 */
const PROFILE_ONLY = [
  /^anthropic\.claude-3-7-/, /^anthropic\.claude-(sonnet|opus|haiku)-\d/, /^meta\.llama(3-2|3-3|4)-/,
  /^amazon\.nova-premier/, /^amazon\.nova-2-/, /^deepseek\./, /^mistral\.pixtral/, /^writer\./,
];

/** The geography prefix a Region's profiles use. */
export function geographyOf(region: string): string {
  if (region.startsWith('us-gov-')) return 'us-gov';
  if (region.startsWith('us-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return 'global';
}

/** Whether a profile of geography `geo` may be called from `region`. */
function servesRegion(geo: string, region: string): boolean {
  switch (geo) {
    case 'global': return true;
    case 'jp': return region === 'ap-northeast-1' || region === 'ap-northeast-3';
    case 'au': return region === 'ap-southeast-2' || region === 'ap-southeast-4';
    case 'ca': return region.startsWith('ca-');
    default: return geographyOf(region) === geo;
  }
}

/** The platform a provider runs on (explicit, or implied by its type). */
function isBedrock(p: ProviderSpec): boolean {
  return p.platform === 'bedrock' || p.type === 'bedrock-converse';
}

/** Warnings for Bedrock models whose id does not fit the Regions their provider calls. */
export function checkBedrockModelIds(config: GatewayConfig, main: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  config.models.forEach((m, i) => {
    const provider = m.provider ? config.providers[m.provider] : undefined;
    if (!provider || !isBedrock(provider)) return;
    const id = upstreamNameOf(m);
    if (id.startsWith('arn:')) return;
    const where = locate(main, ['models', i, m.upstream !== undefined ? 'upstream' : 'id']);
    const regions = [...new Set([provider.region, ...(provider.upstreams ?? []).map((u) => u.region ?? provider.region)].filter((r): r is string => typeof r === 'string' && r !== ''))];
    const geo = GEO_PREFIX.exec(id)?.[1];
    for (const region of regions) {
      if (geo !== undefined && !servesRegion(geo, region)) {
        out.push({ file: main.file, ...where, code: 'W_BEDROCK_PROFILE_REGION', severity: 'warning', message: `model '${m.id}': '${id}' is a cross-Region inference profile of the ${geo} geography, which region ${region} cannot call; use '${geographyOf(region)}.${id.slice(geo.length + 1)}' (or 'global.')` });
      } else if (geo === undefined && PROFILE_ONLY.some((re) => re.test(id))) {
        out.push({ file: main.file, ...where, code: 'W_BEDROCK_INFERENCE_PROFILE', severity: 'warning', message: `model '${m.id}': Bedrock serves '${id}' only through a cross-Region inference profile; for region ${region} write upstream: ${geographyOf(region)}.${id}` });
        break;
      }
    }
  });
  return out;
}
