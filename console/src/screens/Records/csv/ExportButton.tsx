import { useState } from 'react';
import type { Filter, TableListQuery, UntypedRow } from '@basalt/client';
import { client } from '../../../api';
import { downloadText } from '../../../download';
import { describeError } from '../../../errors';

interface ExportButtonProps {
  table: string;
  /** The grid's filter and order: the export holds what the grid pages through. */
  filter: Filter<UntypedRow>;
  order: TableListQuery['order'];
  hasFilters: boolean;
}

/**
 * Downloads every row the grid's filters match, in its order, as `<table>.csv`: the client asks for the list as CSV
 * page after page (`Link: rel="next"`) and keeps the header row once.
 */
export function ExportButton({ table, filter, order, hasFilters }: ExportButtonProps) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();

  const start = async () => {
    setFailure(undefined);
    setBusy(true);
    try {
      const csv = await client.admin.from(table).exportCsv(order === undefined ? { filter } : { filter, order });
      downloadText(csv, `${table}.csv`, 'text/csv;charset=utf-8');
    } catch (error) {
      setFailure(`The export stopped: ${describeError(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={() => void start()}
        disabled={busy}
        title={hasFilters ? 'Download the records these filters match as CSV' : 'Download every record as CSV'}
      >
        {busy ? 'Exporting…' : hasFilters ? 'Export filtered CSV' : 'Export CSV'}
      </button>
      {failure && (
        <p className="form-error records-export-error" role="alert">
          {failure}
        </p>
      )}
    </>
  );
}
