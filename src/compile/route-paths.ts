/**
 * Route paths as the server matches them, decided when a pipeline is built: which paths a
 * parameter route leaves to its static siblings, wildcard routes, and the matchers that 404 and
 * 405 answers use.
 */
import type { CompiledRoute } from './runtime.js';

/**
 * Which request paths a route with a path parameter must leave to a static sibling route.
 * `GET /v1/responses/:id` also matches `/v1/responses/compact`, a path another route declares
 * (for POST): that request is not a response id, and a `GET` of it must be a 405 naming the
 * static route's methods, not "no response 'compact'". The rule is general: a parameter route
 * never takes a path that a route with a static segment at one of its parameter positions
 * (and the same shape elsewhere) matches, whatever the registration order or the method.
 */
export interface RoutePathMatcher {
  readonly method: string;
  /** Whether this route serves `path` (trailing slash allowed, as the router allows it). */
  matches(path: string): boolean;
}

/** A route pattern as a regular expression (parameters match one segment). */
function patternOf(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);
}

/** True when `sibling` is `route` with a static segment in place of at least one of its parameters. */
function isStaticSibling(route: string[], sibling: string[]): boolean {
  if (route.length !== sibling.length) return false;
  let narrower = false;
  for (let i = 0; i < route.length; i++) {
    const mine = route[i]!;
    const theirs = sibling[i]!;
    if (mine.startsWith(':')) narrower ||= !theirs.startsWith(':');
    else if (theirs !== mine) return false;
  }
  return narrower;
}

/**
 * The paths `path` (a parameter route's pattern) must not take: those of its static siblings
 * among `routes`. Undefined when there are none (the route needs no guard).
 */
export function shadowedBy(path: string, routes: readonly CompiledRoute[]): ((requestPath: string) => boolean) | undefined {
  if (!path.includes(':')) return undefined;
  const segments = path.split('/');
  const siblings = [...new Set(routes.map((r) => r.spec.path))].filter((p) => p !== path && isStaticSibling(segments, p.split('/'))).map(patternOf);
  if (siblings.length === 0) return undefined;
  return (requestPath) => siblings.some((re) => re.test(requestPath));
}

/** A matcher per route that honours the shadowing above (what 404/405 decisions use). */
export function routePathMatchers(routes: readonly CompiledRoute[]): RoutePathMatcher[] {
  return routes.map((r) => {
    const re = patternOf(r.spec.path);
    const shadowed = shadowedBy(r.spec.path, routes);
    return { method: r.spec.method, matches: (p: string) => re.test(p) && !(shadowed?.(p) ?? false) };
  });
}

/**
 * A matcher per route, wildcard routes included (what 404/405 decisions use): wildcard routes
 * match by their own pattern, the others honour route shadowing.
 */
export function allRoutePathMatchers(routes: readonly CompiledRoute[]): RoutePathMatcher[] {
  return [
    ...routePathMatchers(routes.filter((r) => !isWildcard(r.spec.path))),
    ...routes.filter((r) => isWildcard(r.spec.path)).map((r) => {
      const re = new RegExp(`^${wildcardPattern(r.spec.path)}/?$`);
      return { method: r.spec.method, matches: (p: string) => re.test(p) };
    }),
  ];
}

/** A path ending in a `{*name}` wildcard (path-to-regexp 8). */
export function isWildcard(path: string): boolean {
  return /\{\*[A-Za-z_][A-Za-z0-9_]*\}$/.test(path);
}

/** A route path as a regular expression source: `:name` one segment, `{*name}` anything (or nothing). */
function wildcardPattern(path: string): string {
  const wildcard = /\/?\{\*[A-Za-z_][A-Za-z0-9_]*\}$/;
  const tail = wildcard.test(path) ? '(?:/.*)?' : '';
  return path.replace(wildcard, '').replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+') + tail;
}
