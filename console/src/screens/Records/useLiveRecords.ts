import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { client } from '../../api';
import { describeError } from '../../errors';
import { keys } from '../../queries';

export type LiveState = { status: 'connecting' } | { status: 'live' } | { status: 'stopped'; reason: string };

/** Bursts of changes refetch the page once. */
const SETTLE_MS = 150;

/**
 * The grid follows the table live: every change of any row (the owner's stream, past the policy) refetches the page
 * on screen and the row count, so new rows appear and deleted ones go, in the grid's own order and filters. It says
 * Live only once the stream is open (a table's changes are captured from then on), and Connecting while it is not.
 */
export function useLiveRecords(table: string): LiveState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>({ status: 'connecting' });
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
    }, (status) => {
      setState(status === 'open' ? { status: 'live' } : { status: 'connecting' });
      // Changes made while the stream was down or opening were not delivered: the page is read again.
      if (status === 'open') void queryClient.invalidateQueries({ queryKey: keys.records(table) });
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [table, queryClient]);
  return state;
}
