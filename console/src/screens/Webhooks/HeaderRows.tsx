import { useState } from 'react';
import { MAX_WEBHOOK_HEADERS } from '@basalt/contract';
import { FieldGroup } from '../../components/FieldGroup';
import { newHeaderDraft, type HeaderDraft } from './webhookDraft';

interface HeaderRowsProps {
  rows: readonly HeaderDraft[];
  error: string | undefined;
  onChange: (rows: HeaderDraft[]) => void;
}

/** Headers sent with every attempt (a receiver's own credentials, say): a name and a value per row. */
export function HeaderRows({ rows, error, onChange }: HeaderRowsProps) {
  // The row just added takes the focus: a keyboard user types its name next.
  const [added, setAdded] = useState<number | null>(null);
  const set = (key: number, patch: Partial<HeaderDraft>) => onChange(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  return (
    <FieldGroup
      legend="Headers"
      error={error}
      hint={`Optional: up to ${MAX_WEBHOOK_HEADERS}, sent with every attempt (not webhook-*, host or content-*, which Basalt sets).`}
    >
      {rows.map((row, index) => (
        <div key={row.key} className="webhook-header-row">
          <input
            aria-label={`Header ${index + 1} name`}
            autoFocus={row.key === added}
            value={row.name}
            placeholder="Name, e.g. Authorization"
            spellCheck={false}
            autoCapitalize="off"
            onChange={(event) => set(row.key, { name: event.target.value })}
          />
          <input
            aria-label={`Header ${index + 1} value`}
            value={row.value}
            placeholder="Value"
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            onChange={(event) => set(row.key, { value: event.target.value })}
          />
          <button type="button" className="button button-small button-quiet" onClick={() => onChange(rows.filter((r) => r.key !== row.key))}>
            Remove<span className="visually-hidden"> header {index + 1}</span>
          </button>
        </div>
      ))}
      {rows.length < MAX_WEBHOOK_HEADERS && (
        <div>
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              const row = newHeaderDraft();
              setAdded(row.key);
              onChange([...rows, row]);
            }}
          >
            Add a header
          </button>
        </div>
      )}
    </FieldGroup>
  );
}
