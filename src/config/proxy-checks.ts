import type { Diagnostic } from './diagnostics.js';
import type { LoadedProject } from './load-project.js';
import type { RouteSpec } from './types.js';
import { suggest } from './did-you-mean.js';
import { locate } from './yaml-source.js';

/** The wildcard a pass-through route's path ends in (path-to-regexp 8 syntax). */
const WILDCARD = /\/\{\*[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * Checks of pass-through routes (`operation: proxy`), once per route file: the path ends in a
 * `{*name}` wildcard under `strip_prefix`; warnings for a provider name that looks like a typo
 * of a declared one, a route that forwards any path (no `allow`) or cannot be called by keys
 * with a budget (no `charge_usd`), and a `max_signed_body_bytes` its provider never reads (its
 * credentials do not sign bodies). Every auth type authenticates forwarded requests.
 */
export function checkProxyRoutes(project: LoadedProject): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const route of project.routes) {
    if (seen.has(route.file)) continue;
    if (!route.proxy && route.handler === 'proxy') {
      seen.add(route.file);
      const src = project.sources.get(route.file)!;
      out.push({ file: src.file, ...locate(src, ['handler']), code: 'E_PROXY_HANDLER', severity: 'error', message: 'handler proxy serves operation: proxy routes with a proxy block only' });
      continue;
    }
    if (!route.proxy) continue;
    seen.add(route.file);
    const src = project.sources.get(route.file)!;
    const report = (path: Array<string | number>, code: string, message: string, severity: Diagnostic['severity'] = 'error'): void => {
      out.push({ file: src.file, ...locate(src, path), code, severity, message });
    };
    if (route.operation === 'proxy') checkOne(route, project, report);
    else report(['proxy'], 'E_PROXY_OPERATION', `a proxy block is read on operation: proxy routes only (this route's operation is '${route.operation}')`);
  }
  return out;
}

type Report = (path: Array<string | number>, code: string, message: string, severity?: Diagnostic['severity']) => void;

function checkOne(route: RouteSpec, project: LoadedProject, report: Report): void {
  const proxy = route.proxy!;
  if (route.handler !== 'proxy') report(['handler'], 'E_PROXY_HANDLER', `an operation: proxy route is served by the proxy handler; remove handler '${route.handler}'`);
  if (!WILDCARD.test(route.path)) report(['path'], 'E_PROXY_PATH', `a pass-through path ends in a wildcard such as /{*rest} (got ${route.path})`);
  const staticPart = route.path.replace(WILDCARD, '');
  const prefix = proxy.strip_prefix ?? '';
  if (prefix && staticPart !== prefix && !staticPart.startsWith(`${prefix}/`)) {
    report(['proxy', 'strip_prefix'], 'E_PROXY_PATH', `strip_prefix '${prefix}' is not the start of the route path ${route.path}`);
  }
  const providers = project.config?.providers ?? {};
  const provider = providers[proxy.provider];
  if (!provider) {
    // The shipped routes name openai and anthropic: a config without them starts, quietly (the
    // routes answer 400 provider_not_configured); a name close to a declared one is a typo.
    const hint = suggest(proxy.provider, Object.keys(providers));
    if (hint) report(['proxy', 'provider'], 'W_PROXY_PROVIDER', `provider '${proxy.provider}' is not declared; did you mean '${hint}'? The route answers 400 provider_not_configured until it is`, 'warning');
  } else if (proxy.max_signed_body_bytes !== undefined && authTypeName(provider) !== 'aws') {
    report(['proxy', 'max_signed_body_bytes'], 'W_PROXY_SIGNED_BODY', `provider '${proxy.provider}' authenticates with auth type '${authTypeName(provider)}', which does not sign bodies: bodies stream through untouched and max_signed_body_bytes is not read (it applies to auth: aws)`, 'warning');
  }
  if (!proxy.allow) report(['proxy'], 'W_PROXY_NO_ALLOW', 'pass-through route without `allow`: every path of the provider is reachable with the provider\'s credentials; list the paths clients need', 'warning');
  if (proxy.charge_usd === undefined) report(['proxy'], 'W_PROXY_NO_CHARGE', 'pass-through route without `charge_usd`: keys with a budget are refused (403 passthrough_not_billable) and others spend nothing on it', 'warning');
}

/** `auth.type` of a provider (the cloud providers declare one), else `api_key`. */
function authTypeName(provider: object): string {
  const auth = (provider as { auth?: unknown }).auth;
  const type = auth && typeof auth === 'object' ? (auth as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'api_key';
}
