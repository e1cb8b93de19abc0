import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { client } from '../../api';
import { describeError } from '../../errors';
import { keys } from '../../queries';

export type LiveState = { status: 'live' } | { status: 'stopped'; reason: string };

/** Bursts of changes refetch the page once. */
const SETTLE_MS = 150;

/**
 * The grid follows the table live: every change of any row (the owner's stream, past the policy) refetches the page
 * on screen and the row count, so new rows appear and deleted ones go, in the grid's own order and filters.
 */
export function useLiveRecords(table: string): LiveState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>({ status: 'live' });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = client.admin.subscribe(table, (event) => {
      if (event.type === 'error') {
        setState({ status: 'stopped', reason: describeError(event.error) });
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(() => {
        void queryClient.invalidateQueries({ queryKey: keys.records(table) });
        void queryClient.invalidateQueries({ queryKey: keys.table(table) });
      }, SETTLE_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [table, queryClient]);
  return state;
}
