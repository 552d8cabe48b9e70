/**
 * Path rules of pass-through routes, without Koa: the request path is normalised (percent
 * escapes decoded, `.` and `..` resolved, duplicate slashes collapsed), `strip_prefix` is
 * removed, and what remains (the provider's own path, e.g. `/v1/batches/abc`) is matched
 * against the route's `allow` globs and appended to the upstream base path. The path sent is
 * the normalised one, so what was checked is exactly what the upstream receives.
 */

/** Why a path cannot be forwarded. */
export type PathRefusal = 'malformed' | 'outside_prefix' | 'not_allowed';

/** A path to forward, or why not. */
export type UpstreamPath = { ok: true; path: string; providerPath: string } | { ok: false; refusal: PathRefusal; providerPath?: string };

/** What a route's path rules are built from (its compiled proxy plan). */
export interface PathRules {
  readonly stripPrefix: string;
  readonly basePath: string;
  readonly allow?: readonly RegExp[];
}

/**
 * The upstream path and query of a request URL (`/passthrough/openai/v1/batches?limit=2`),
 * or the refusal: `malformed` (a bad escape, an encoded `/`, `\` or NUL), `outside_prefix`
 * (`..` climbed out of strip_prefix), `not_allowed` (no `allow` glob matches).
 */
export function upstreamPathOf(rawUrl: string, rules: PathRules): UpstreamPath {
  const q = rawUrl.indexOf('?');
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query = q < 0 ? '' : rawUrl.slice(q);
  const segments = normaliseSegments(rawPath);
  if (!segments) return { ok: false, refusal: 'malformed' };
  const prefix = rules.stripPrefix ? normaliseSegments(rules.stripPrefix) ?? [] : [];
  if (segments.length < prefix.length || prefix.some((p, i) => segments[i] !== p)) return { ok: false, refusal: 'outside_prefix' };
  const rest = segments.slice(prefix.length);
  // A trailing slash is kept: some APIs tell `/v1/files/` from `/v1/files`.
  const trailing = rest.length > 0 && /\/$/.test(rawPath) ? '/' : '';
  const providerPath = `/${rest.map(encodeSegment).join('/')}${trailing}`;
  if (rules.allow && !rules.allow.some((re) => re.test(providerPath))) return { ok: false, refusal: 'not_allowed', providerPath };
  return { ok: true, path: `${rules.basePath}${providerPath}${query}`, providerPath };
}

/**
 * Decoded path segments with `.`/`..` resolved and empty segments dropped; undefined for a
 * path that cannot be read safely. `..` above the root stays at the root (as URL resolution
 * does): the prefix check after this then refuses it.
 */
function normaliseSegments(path: string): string[] | undefined {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    // An encoded separator or NUL would mean one thing here and another upstream.
    if (/[/\\\0]/.test(segment)) return undefined;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return out;
}

/**
 * A decoded segment written back: percent-encoded except the characters paths keep as they are.
 * `'` is escaped: http-proxy re-reads the path with url.parse, which escapes it, and a signer
 * (SigV4) must sign the path exactly as it is sent.
 */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(3A|40|21|24|26|28|29|2A|2B|2C|3B|3D)/gi, (m) => decodeURIComponent(m)).replace(/'/g, '%27');
}
