interface OffsetPagerProps {
  offset: number;
  pageSize: number;
  /** Rows on the page shown. */
  shown: number;
  total: number;
  onOffset: (offset: number) => void;
}

/** Paging by offset under a list the server counts (users, the outbox); nothing while everything fits one page. */
export function OffsetPager({ offset, pageSize, shown, total, onOffset }: OffsetPagerProps) {
  if (total <= pageSize && offset === 0) return null;
  return (
    <div className="pager">
      <span className="pager-status">{shown === 0 ? `0 of ${total}` : `${offset + 1}–${offset + shown} of ${total}`}</span>
      <div className="pager-buttons">
        <button type="button" className="button button-small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
          Previous
        </button>
        <button type="button" className="button button-small" disabled={offset + pageSize >= total} onClick={() => onOffset(offset + pageSize)}>
          Next
        </button>
      </div>
    </div>
  );
}
