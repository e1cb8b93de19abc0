import { ConfigError } from '../../configError.js';

/**
 * Where `redirectTo` may send a user after a mail's link (API.md, Part 2 in detail, Email): `auth.redirectUrls` holds
 * exact URLs or `scheme://host[:port]/path-prefix*` with the `*` right after a `/`. A candidate is parsed and matched
 * on its parts (same scheme, host and port; a user or password in it is refused), never as a string prefix, so
 * `https://app.example.com.evil.test` or `https://app.example.com@evil.test` match nothing. Unset: any URL on
 * `auth.siteUrl`'s origin; neither set: no redirect is allowed.
 */
export type RedirectRule = { kind: 'exact'; url: string } | { kind: 'prefix'; origin: string; path: string };

function ruleOf(entry: string, where: string): RedirectRule {
  const star = entry.endsWith('*');
  let url: URL;
  try {
    url = new URL(star ? entry.slice(0, -1) : entry);
  } catch {
    throw new ConfigError(`${where}: "${entry}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) throw new ConfigError(`${where}: "${entry}" has no scheme`);
  if (url.username || url.password) throw new ConfigError(`${where}: "${entry}" must not hold a user or password`);
  if (entry.slice(0, -1).includes('*') || (!star && entry.includes('*'))) throw new ConfigError(`${where}: "${entry}" may hold one "*", at its end`);
  if (!star) return { kind: 'exact', url: url.href };
  if (!url.pathname.endsWith('/') || url.search || url.hash) throw new ConfigError(`${where}: "${entry}": the "*" must come right after a "/" of the path`);
  return { kind: 'prefix', origin: url.origin, path: url.pathname };
}

export function parseRedirectRules(value: unknown, siteUrl: string | null, configPath: string): RedirectRule[] {
  const where = `${configPath}: auth.redirectUrls`;
  if (value === undefined || value === null) return siteUrl ? [{ kind: 'prefix', origin: new URL(siteUrl).origin, path: '/' }] : [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) throw new ConfigError(`${where} must be a list of URLs`);
  return (value as string[]).map((entry) => ruleOf(entry.trim(), where));
}

/** Whether `candidate` is an allowed `redirectTo`; the URL as it will be used, or null. */
export function allowedRedirect(rules: RedirectRule[], candidate: string): string | null {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  for (const rule of rules) {
    if (rule.kind === 'exact' ? url.href === rule.url : url.origin === rule.origin && url.origin !== 'null' && url.pathname.startsWith(rule.path)) return url.href;
  }
  return null;
}
