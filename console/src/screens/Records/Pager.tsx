import { DEFAULT_LIMIT, MAX_LIMIT } from '@basalt/contract';

const PAGE_SIZES = [10, DEFAULT_LIMIT, 50, MAX_LIMIT];

interface PagerProps {
  total: number;
  offset: number;
  limit: number;
  shown: number;
  fetching: boolean;
  onOffset: (offset: number) => void;
  onLimit: (limit: number) => void;
}

export function Pager({ total, offset, limit, shown, fetching, onOffset, onLimit }: PagerProps) {
  const page = Math.floor(offset / limit) + 1;
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
        {total === 0 ? '0 records' : `${offset + 1}–${offset + shown} of ${total}`} · page {page} of {pages}
      </span>
      <div className="pager-buttons">
        <button type="button" className="button button-small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" className="button button-small" disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
          Next
        </button>
      </div>
    </div>
  );
}
