import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import { client } from '../../../api';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { describeError } from '../../../errors';
import { recordId } from '../values';
import { BulkEditForm } from './BulkEditForm';
import type { RowSelection } from './useRowSelection';

interface BulkBarProps {
  table: TableInfo;
  selection: RowSelection;
  /** After a change: the grid is asked again, and says what happened. */
  onChanged: (message: string) => void;
}

const records = (count: number) => `${count} ${count === 1 ? 'record' : 'records'}`;

/** What can be done to the chosen rows together: edit one column of all, or delete them (`id[in]=...`). */
export function BulkBar({ table, selection, onChanged }: BulkBarProps) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const chosen = selection.rows;
  const remove = useMutation({
    mutationFn: () => client.admin.from(table.name).deleteWhere({ filter: { id: { in: chosen.map(recordId) } } }),
    onSuccess: (deleted) => {
      setConfirming(false);
      selection.clear();
      onChanged(`Deleted ${records(deleted.length)}.`);
    },
  });
  if (chosen.length === 0 && !confirming) return null;

  return (
    <>
      <div className="bulk-bar" role="group" aria-label="Chosen records">
        <span className="bulk-count">{records(chosen.length)} selected</span>
        <button type="button" className="button button-small" onClick={() => setEditing(true)} disabled={editing}>
          Edit selected
        </button>
        <button
          type="button"
          className="button button-small button-danger-quiet"
          onClick={() => {
            remove.reset();
            setConfirming(true);
          }}
        >
          Delete selected
        </button>
        <button type="button" className="button button-small button-quiet" onClick={selection.clear}>
          Clear selection
        </button>
      </div>
      {editing && chosen.length > 0 && (
        <BulkEditForm
          table={table}
          rows={chosen}
          onCancel={() => setEditing(false)}
          onDone={(changed) => {
            setEditing(false);
            selection.clear();
            onChanged(`Changed ${records(changed)}.`);
          }}
        />
      )}
      <ConfirmDialog
        open={confirming}
        title={`Delete ${records(chosen.length)}?`}
        confirmLabel={`Delete ${records(chosen.length)}`}
        busy={remove.isPending}
        error={remove.isError ? describeError(remove.error) : undefined}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate()}
      >
        <p>
          {records(chosen.length)} {chosen.length === 1 ? 'is' : 'are'} deleted from {table.name}
          {table.kind === 'files' ? ', with their files' : ''}. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
