import { useState } from 'react';

/**
 * Keyset paging in the grid: the cursors walked so far, the last one being the page shown (null: the first page).
 * Next pushes the page's `next`; Previous pops; any change of order, filters or page size starts again.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const page = cursors.length - 1;
  return {
    page,
    after: cursors[page] ?? null,
    next: (cursor: string) => setCursors((walked) => [...walked, cursor]),
    previous: () => setCursors((walked) => (walked.length > 1 ? walked.slice(0, -1) : walked)),
    reset: () => setCursors((walked) => (walked.length === 1 && walked[0] === null ? walked : [null])),
  };
}
