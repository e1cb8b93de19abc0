import type { ReactNode } from 'react';
import { ErrorState, Loading } from './States';

/** What a list needs of its query: a react-query result fits as it is. */
export interface ListQuery<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  isError: boolean;
  refetch: () => unknown;
}

interface CommonProps<T> {
  query: ListQuery<T>;
  /** The spinner's words while the first answer is on its way ("Loading tables…"). */
  pendingLabel: string;
  /** Whether an answer holds nothing to list; `empty` shows then. Without it, a list is never empty. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  /**
   * Whether the error offers "Try again" (it does unless told): not where asking again cannot help, such as a filter
   * the server refused, which stays refused until the owner changes it.
   */
  retry?: boolean;
  /** An error the screen explains in its own words (a table that does not exist); undefined: the usual error state. */
  explainError?: (error: unknown) => ReactNode;
}

/**
 * Where an error shows:
 * - `replace` (the default): in the content's place, also when a refresh of content already shown fails;
 * - `keep-data`: in the content's place only while there is none; a screen that keeps showing older data says
 *   itself that the refresh failed (the overview, refreshed every few seconds);
 * - `above`: above content that always shows once the first answer came, loaded or not, in a box of
 *   `errorClassName`. The records grid does this so that its header and filters stay in reach to undo the filter
 *   that failed; it places the empty state itself (children's second argument), under its header.
 */
type PlacementProps<T> =
  | { errorPlacement?: 'replace' | 'keep-data'; children: (data: T) => ReactNode }
  | { errorPlacement: 'above'; errorClassName: string; children: (data: T | undefined, empty: ReactNode) => ReactNode };

export type ListStateProps<T> = CommonProps<T> & PlacementProps<T>;

/**
 * The states of every list in the console, in one place: a spinner until the first answer, the error (with its
 * retry) instead of the list, the empty state, or the list. Each screen gives its own words.
 */
export function ListState<T>(props: ListStateProps<T>) {
  const { query, pendingLabel, isEmpty, empty = null, retry = true, explainError } = props;
  const failure = query.isError ? (explainError?.(query.error) ?? <ErrorState error={query.error} onRetry={retry ? () => void query.refetch() : undefined} />) : null;

  if (props.errorPlacement === 'above') {
    const data = query.data;
    const showEmpty = !query.isError && data !== undefined && isEmpty?.(data) === true;
    return (
      <>
        {query.isError && <div className={props.errorClassName}>{failure}</div>}
        {query.isPending ? <Loading label={pendingLabel} /> : props.children(data, showEmpty ? empty : null)}
      </>
    );
  }

  if (query.isPending) return <Loading label={pendingLabel} />;
  const data = query.data;
  if (query.isError && (props.errorPlacement !== 'keep-data' || data === undefined)) return failure;
  // Settled without an error, or a failed refresh of data still shown: there is data.
  if (data === undefined) return null;
  if (isEmpty?.(data)) return <>{empty}</>;
  return <>{props.children(data)}</>;
}
