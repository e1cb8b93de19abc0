import { DEFAULT_LIMIT, MAX_LIMIT } from '@basalt/contract';

const PAGE_SIZES = [10, DEFAULT_LIMIT, 50, MAX_LIMIT];

interface PagerProps {
  total: number;
  /** 0-based page number: pages are followed by cursor, so only the count of pages walked is known. */
  page: number;
  limit: number;
  shown: number;
  hasNext: boolean;
  fetching: boolean;
  onNext: () => void;
  onPrevious: () => void;
  onLimit: (limit: number) => void;
}

/** Pages by cursor (the server's `next`); going back retraces the cursors already walked. */
export function Pager({ total, page, limit, shown, hasNext, fetching, onNext, onPrevious, onLimit }: PagerProps) {
  const first = page * limit;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <div className="pager">
      <label className="pager-size">
        Rows per page
        <select value={limit} onChange={(event) => onLimit(Number(event.target.value))}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <span className="pager-status" role="status">
        {fetching ? 'Updating… ' : ''}
        {shown === 0 ? `0 of ${total} records` : `${first + 1}–${first + shown} of ${total}`} · page {page + 1} of {pages}
      </span>
      <div className="pager-buttons">
        <button type="button" className="button button-small" disabled={page === 0} onClick={onPrevious}>
          Previous
        </button>
        <button type="button" className="button button-small" disabled={!hasNext} onClick={onNext}>
          Next
        </button>
      </div>
    </div>
  );
}
