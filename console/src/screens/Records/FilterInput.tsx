import { useState } from 'react';
import { NULL_TESTS, type ColumnInfo } from '@basalt/contract';
import { isNullTest, OP_LABELS, operatorsFor, placeholderOf, takesValue, type FilterDraft, type FilterOp } from './filters';

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
    const selected = isNullTest(current.op) ? current.op : current.value;
    return (
      <select
        aria-label={label}
        className="filter"
        value={selected}
        aria-invalid={invalid}
        onChange={(event) => {
          const choice = event.target.value;
          onCommit(isNullTest(choice) ? { op: choice, value: '' } : { op: 'eq', value: choice });
        }}
      >
        <option value="">any</option>
        <option value="true">true</option>
        <option value="false">false</option>
        {NULL_TESTS.map((test) => (
          <option key={test} value={test}>
            {OP_LABELS[test]}
          </option>
        ))}
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
        {operatorsFor(column.type).map((op) => (
          <option key={op} value={op}>
            {OP_LABELS[op]}
          </option>
        ))}
      </select>
      {takesValue(current.op) && (
        <input
          aria-label={label}
          className="filter"
          placeholder={placeholderOf(current.op)}
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
