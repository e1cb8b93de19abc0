import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/**
 * A router of a handful of screens needs no library: the path under the base (`/console/`) is the state, the History API
 * changes it, and the server answers every deep path under /console/ with index.html.
 */
const BASE = import.meta.env.BASE_URL;
const NAVIGATE_EVENT = 'console:navigate';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(NAVIGATE_EVENT, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(NAVIGATE_EVENT, listener);
  };
}

function currentPath(): string {
  const { pathname } = window.location;
  return pathname.startsWith(BASE) ? pathname.slice(BASE.length).replace(/\/+$/, '') : '';
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/** The query string of the address (`?id=...` opens a table's screen on one record). */
export function useSearch(): string {
  return useSyncExternalStore(subscribe, () => window.location.search);
}

export function hrefOf(to: string): string {
  return BASE + to;
}

/** A console path as a whole address, for a server that sends the browser back here (a provider's `redirectTo`). */
export function absoluteHref(to: string): string {
  return new URL(hrefOf(to), window.location.href).href;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', hrefOf(to));
  else window.history.pushState(null, '', hrefOf(to));
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
  window.scrollTo(0, 0);
}

export type Route =
  | { screen: 'tables' }
  | { screen: 'table'; name: string }
  | { screen: 'users' }
  | { screen: 'outbox' }
  | { screen: 'webhooks' }
  | { screen: 'webhook'; id: string }
  | { screen: 'api' }
  | { screen: 'reference' }
  | { screen: 'overview' }
  | { screen: 'keys' }
  | { screen: 'account' }
  | { screen: 'reset' }
  | { screen: 'recover' }
  | { screen: 'not-found'; path: string };

export function matchRoute(path: string): Route {
  if (path === '' || path === 'tables') return { screen: 'tables' };
  const table = /^tables\/([^/]+)$/.exec(path);
  if (table?.[1]) return { screen: 'table', name: decodeURIComponent(table[1]) };
  if (path === 'users') return { screen: 'users' };
  if (path === 'outbox') return { screen: 'outbox' };
  if (path === 'webhooks') return { screen: 'webhooks' };
  const webhook = /^webhooks\/([^/]+)$/.exec(path);
  if (webhook?.[1]) return { screen: 'webhook', id: decodeURIComponent(webhook[1]) };
  if (path === 'api') return { screen: 'api' };
  if (path === 'api/reference') return { screen: 'reference' };
  if (path === 'overview') return { screen: 'overview' };
  if (path === 'keys') return { screen: 'keys' };
  if (path === 'account') return { screen: 'account' };
  if (path === 'reset') return { screen: 'reset' };
  if (path === 'recover') return { screen: 'recover' };
  return { screen: 'not-found', path };
}

export const tablePath = (name: string) => `tables/${encodeURIComponent(name)}`;

/** A webhook's screen: its deliveries and replay. */
export const webhookPath = (id: string) => `webhooks/${encodeURIComponent(id)}`;

/** A table's screen showing one record (its grid filtered to that id). */
export const recordPath = (table: string, id: string | number) => `${tablePath(table)}?id=${encodeURIComponent(String(id))}`;

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** A real link (middle-click and "open in new tab" work) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={hrefOf(to)} onClick={handleClick} {...rest} />;
}
