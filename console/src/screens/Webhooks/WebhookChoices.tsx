import { useId } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '@basalt/contract';
import { FieldGroup } from '../../components/FieldGroup';
import { useTables } from '../../queries';
import { toggleEvent } from './webhookDraft';

const EVENT_HINTS: Record<WebhookEvent, string> = {
  insert: 'a row created',
  update: 'a row changed',
  delete: 'a row deleted',
  truncate: 'a whole table emptied',
};

interface TablesChoiceProps {
  everyTable: boolean;
  tables: readonly string[];
  error: string | undefined;
  onChange: (choice: { everyTable: boolean; tables: string[] }) => void;
}

/** Every table (those made later too), or some: one checkbox per table of the project. */
export function TablesChoice({ everyTable, tables, error, onChange }: TablesChoiceProps) {
  const name = useId();
  const list = useTables();
  const names = (list.data ?? []).map((table) => table.name);
  // A table the webhook follows that is gone (dropped since) stays listed, so it can be unticked.
  const shown = [...names, ...tables.filter((table) => !names.includes(table))];
  const toggle = (table: string) => onChange({ everyTable: false, tables: tables.includes(table) ? tables.filter((t) => t !== table) : [...tables, table] });
  return (
    <FieldGroup legend="Tables" error={error} className="webhook-tables">
      <div className="webhook-options">
        <label className="check">
          <input type="radio" name={name} checked={!everyTable} onChange={() => onChange({ everyTable: false, tables: [...tables] })} />
          Chosen tables
        </label>
        <label className="check">
          <input type="radio" name={name} checked={everyTable} onChange={() => onChange({ everyTable: true, tables: [...tables] })} />
          Every table, those made later too
        </label>
      </div>
      {!everyTable && (
        <div className="webhook-table-list" role="group" aria-label="Chosen tables">
          {list.isPending && <span className="muted">Loading tables…</span>}
          {list.isError && <span className="field-error">The tables could not be loaded.</span>}
          {list.isSuccess && shown.length === 0 && <span className="muted">No tables yet: create one first.</span>}
          {shown.map((table) => (
            <label key={table} className="check">
              <input type="checkbox" checked={tables.includes(table)} onChange={() => toggle(table)} />
              {table}
            </label>
          ))}
        </div>
      )}
    </FieldGroup>
  );
}

/** The kinds of change sent; truncate only when ticked (a truncate has no rows, one delivery for the table). */
export function EventsChoice({ events, error, onChange }: { events: readonly WebhookEvent[]; error: string | undefined; onChange: (events: WebhookEvent[]) => void }) {
  return (
    <FieldGroup legend="Events" error={error}>
      <div className="webhook-options">
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="check" title={EVENT_HINTS[event]}>
            <input type="checkbox" checked={events.includes(event)} onChange={() => onChange(toggleEvent(events, event))} />
            {event}
          </label>
        ))}
      </div>
    </FieldGroup>
  );
}
