import { useState } from 'react';
import type { ColumnInfo } from '@basalt/contract';
import { OP_LABELS, OPS_BY_TYPE, takesValue, type FilterDraft, type FilterOp } from './filters';

const EMPTY: FilterDraft = { op: 'eq', value: '' };

/**
 * One column's filter: an operator that fits its type and a value, applied on Enter, when the input loses focus or
 * when the operator changes (not on every keystroke). Boolean columns pick true, false or a null test in one list.
 */
export function FilterInput({ column, value, invalid, onCommit }: { column: ColumnInfo; value: FilterDraft | undefined; invalid: boolean; onCommit: (value: FilterDraft) => void }) {
  const current = value ?? EMPTY;
  const [draft, setDraft] = useState(current.value);
  const [committed, setCommitted] = useState(current.value);
  // "Clear filters" resets the committed value from outside: the draft follows it (state derived during render).
  if (committed !== current.value) {
    setCommitted(current.value);
    setDraft(current.value);
  }
  const label = `Filter ${column.name}`;
  if (column.type === 'boolean') {
    const selected = current.op === 'null' || current.op === 'notnull' ? current.op : current.value;
    return (
      <select
        aria-label={label}
        className="filter"
        value={selected}
        aria-invalid={invalid}
        onChange={(event) => {
          const choice = event.target.value;
          onCommit(choice === 'null' || choice === 'notnull' ? { op: choice, value: '' } : { op: 'eq', value: choice });
        }}
      >
        <option value="">any</option>
        <option value="true">true</option>
        <option value="false">false</option>
        <option value="null">is null</option>
        <option value="notnull">is not null</option>
      </select>
    );
  }
  return (
    <div className="filter-cell">
      <select
        aria-label={`Operator for ${column.name}`}
        className="filter-op"
        value={current.op}
        onChange={(event) => onCommit({ op: event.target.value as FilterOp, value: draft })}
      >
        {OPS_BY_TYPE[column.type].map((op) => (
          <option key={op} value={op}>
            {OP_LABELS[op]}
          </option>
        ))}
      </select>
      {takesValue(current.op) && (
        <input
          aria-label={label}
          className="filter"
          placeholder={current.op === 'in' || current.op === 'nin' ? 'a, b, c' : current.op === 'like' || current.op === 'ilike' ? 'a*' : ''}
          value={draft}
          aria-invalid={invalid}
          spellCheck={false}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={() => onCommit({ op: current.op, value: draft })}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onCommit({ op: current.op, value: draft });
            if (event.key === 'Escape') setDraft(current.value);
          }}
        />
      )}
    </div>
  );
}
