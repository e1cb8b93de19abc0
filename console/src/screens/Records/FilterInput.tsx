import { useState } from 'react';
import type { ColumnInfo } from '@basalt/contract';

/** The list endpoint reads these as paging parameters, so a column of the same name cannot be filtered on. */
const RESERVED_PARAMETERS = new Set(['limit', 'offset', 'order']);

/** An equality filter: applied on Enter or when the input loses focus, not on every keystroke. */
export function FilterInput({ column, value, invalid, onCommit }: { column: ColumnInfo; value: string; invalid: boolean; onCommit: (value: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [committed, setCommitted] = useState(value);
  // "Clear filters" resets the committed value from outside: the draft follows it (state derived during render).
  if (committed !== value) {
    setCommitted(value);
    setDraft(value);
  }
  const label = `Filter ${column.name}`;
  if (RESERVED_PARAMETERS.has(column.name)) return <span className="muted" title="This name is a paging parameter of the list API">—</span>;
  if (column.type === 'boolean') {
    return (
      <select aria-label={label} className="filter" value={value} aria-invalid={invalid} onChange={(event) => onCommit(event.target.value)}>
        <option value="">any</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  return (
    <input
      aria-label={label}
      className="filter"
      placeholder="="
      value={draft}
      aria-invalid={invalid}
      spellCheck={false}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={() => onCommit(draft)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') onCommit(draft);
        if (event.key === 'Escape') setDraft(value);
      }}
    />
  );
}
