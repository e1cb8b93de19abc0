import { useState } from 'react';
import type { UntypedRow } from '@basalt/client';

export type PageSelection = 'none' | 'some' | 'all';

const NONE: ReadonlySet<string> = new Set();

/** How much of the page is chosen: what the select-all box shows (checked, mixed, empty). */
export function pageSelection(rows: readonly UntypedRow[], chosen: ReadonlySet<string>): PageSelection {
  const count = rows.filter((row) => chosen.has(String(row.id))).length;
  return count === 0 ? 'none' : count === rows.length ? 'all' : 'some';
}

/**
 * The rows chosen on the page shown, by id. A choice belongs to its page: another page, order or filter starts with
 * none, and a row that left the page (deleted, changed by someone else) is no longer chosen.
 */
export function useRowSelection(rows: readonly UntypedRow[], pageKey: string) {
  const [state, setState] = useState<{ key: string; ids: ReadonlySet<string> }>({ key: pageKey, ids: NONE });
  const ids = state.key === pageKey ? state.ids : NONE;
  const update = (change: (ids: Set<string>) => void) =>
    setState((current) => {
      const next = new Set(current.key === pageKey ? current.ids : NONE);
      change(next);
      return { key: pageKey, ids: next };
    });
  const chosen = rows.filter((row) => ids.has(String(row.id)));
  const page = pageSelection(rows, ids);
  return {
    rows: chosen,
    page,
    isChosen: (row: UntypedRow) => ids.has(String(row.id)),
    toggle: (row: UntypedRow, on: boolean) => update((next) => (on ? next.add(String(row.id)) : next.delete(String(row.id)))),
    /** Chooses every row of the page, or none when all are chosen. */
    togglePage: () =>
      update((next) => {
        for (const row of rows) {
          if (page === 'all') next.delete(String(row.id));
          else next.add(String(row.id));
        }
      }),
    clear: () => setState({ key: pageKey, ids: NONE }),
  };
}

export type RowSelection = ReturnType<typeof useRowSelection>;
