/**
 * An export is the CSV pages of one list walked by cursor (API.md, "CSV": at most 100 rows a page, each page with
 * its own header row). These join them into one file and find the next page's cursor in the `Link` header.
 */

const BOM = '\uFEFF';

function lineBreakOf(text: string): string {
  const at = text.indexOf('\n');
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n';
}

/** The header row of a page (column names hold no line breaks), without its line break. */
function headerOf(page: string): string {
  const text = page.startsWith(BOM) ? page.slice(1) : page;
  const at = text.indexOf('\n');
  if (at < 0) return text;
  return text.slice(0, at > 0 && text[at - 1] === '\r' ? at - 1 : at);
}

/**
 * The pages as one CSV: the first page whole, each later one without its header row; every record ends with the first
 * page's line break. A later page whose header differs is refused rather than joined into a file that lies.
 */
export function joinCsvPages(pages: readonly string[]): string {
  const [first, ...rest] = pages;
  if (first === undefined || first === '') return '';
  const header = headerOf(first);
  const lineBreak = lineBreakOf(first);
  const withBreak = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}${lineBreak}`);
  let joined = withBreak(first);
  rest.forEach((page, index) => {
    const text = page.startsWith(BOM) ? page.slice(1) : page;
    if (headerOf(text) !== header) throw new Error(`Page ${index + 2} of the export has other columns than page 1`);
    const body = text.slice(header.length).replace(/^\r?\n/, '');
    joined += withBreak(body);
  });
  return joined;
}

/** The `after` cursor of a `Link: <...&after=...>; rel="next"` header, or null when there is no next page. */
export function nextCursor(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(match[2] ?? '')?.[1]?.split(/\s+/) ?? [];
    if (!rels.includes('next')) continue;
    return new URL(match[1] ?? '', 'http://link.invalid/').searchParams.get('after');
  }
  return null;
}

/** The records of a CSV page after its header row (a line break inside a quoted cell is no new record). */
export function csvRowCount(page: string): number {
  let breaks = 0;
  let quoted = false;
  for (const char of page) {
    if (char === '"') quoted = !quoted;
    else if (char === '\n' && !quoted) breaks += 1;
  }
  const lines = page === '' ? 0 : page.endsWith('\n') ? breaks : breaks + 1;
  return Math.max(0, lines - 1);
}
