import type { QueryValue } from './http.js';
import type { Exchange } from './transport.js';

/**
 * CSV in and out of a table (API.md, "Query language, part 2"): the server writes and reads the cells; the client
 * only pages an export and sends an import's text as it is.
 */

export const CSV_MEDIA_TYPE = 'text/csv';

/**
 * The cursor of the next page from a `Link: <url>; rel="next"` header, or null when there is none. Only `after` is
 * taken from the link: the next request goes to this client's own URL with its own parameters (behind a proxy the
 * server's idea of its URL may not be the client's).
 */
export function nextCursor(link: string | null): string | null {
  if (!link) return null;
  for (const [, target, params] of link.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(params ?? '')?.[1]?.split(/\s+/) ?? [];
    if (target !== undefined && rels.includes('next')) return new URL(target, 'http://link.invalid').searchParams.get('after');
  }
  return null;
}

/**
 * Appends one page of an export to the text so far: the first page whole, each later one without its header row (the
 * first line: column names never hold a line break). A page that does not end its last row gets the page's own line
 * break before the next is appended.
 */
export function appendCsvPage(sofar: string, page: string): string {
  let rows = page;
  if (sofar) {
    const headerEnd = page.indexOf('\n');
    rows = headerEnd === -1 ? '' : page.slice(headerEnd + 1);
  }
  if (!rows) return sofar;
  const text = sofar + rows;
  return text.endsWith('\n') ? text : text + (page.includes('\r\n') ? '\r\n' : '\n');
}

/**
 * Every page of a list asked as CSV (`Accept: text/csv`) from `path` with `params`, following `Link: rel="next"`, as
 * one text with the header row once.
 */
export async function fetchCsvPages(exchange: Exchange, path: string, params: Record<string, QueryValue | undefined>): Promise<string> {
  let csv = '';
  let after: string | null = null;
  do {
    const answer: { body: string; headers: Headers } = await exchange<string>({ method: 'GET', path, query: { ...params, after: after ?? undefined }, accept: CSV_MEDIA_TYPE });
    csv = appendCsvPage(csv, answer.body);
    after = nextCursor(answer.headers.get('link'));
  } while (after);
  return csv;
}
