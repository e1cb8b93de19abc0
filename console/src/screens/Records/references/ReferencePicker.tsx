import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';
import { client } from '../../../api';
import { useTables } from '../../../queries';
import { labelColumnOf } from './labels';

const OPTIONS = 10;
const SEARCH_DELAY_MS = 200;

interface ReferencePickerProps {
  column: ColumnInfo & { references: NonNullable<ColumnInfo['references']> };
  /** The id as typed or picked. */
  value: string;
  control: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined };
  placeholder: string | undefined;
  autoFocus: boolean;
  onChange: (id: string) => void;
}

/**
 * A reference field: type to search the referenced table by its label column (name, title, ...), pick a row with the
 * mouse or the keyboard (arrows, Enter, Escape), or type an id outright. An ARIA combobox with a listbox of options.
 */
export function ReferencePicker({ column, value, control, placeholder, autoFocus, onChange }: ReferencePickerProps) {
  const listId = useId();
  const target = useTables().data?.find((table) => table.name === column.references.table);
  const label = target ? labelColumnOf(target) : 'id';
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [term, setTerm] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setTerm(value), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value]);

  const search = useQuery({
    queryKey: ['reference-pick', column.references.table, label, term],
    queryFn: () =>
      client.admin.records(column.references.table, {
        filter: label === 'id' ? (term ? { id: { eq: term } } : {}) : term ? { [label]: { ilike: `*${term}*` } } : {},
        select: [...new Set(['id', label])],
        order: label === 'id' ? 'id.asc' : `${label}.asc`,
        limit: OPTIONS,
        count: 'none',
      }),
    enabled: target !== undefined,
    placeholderData: keepPreviousData,
  });
  // The row the value names, when the search found it (the picked one, or an id typed in full).
  const chosen = useQuery({
    queryKey: ['reference-pick', column.references.table, label, 'id', value],
    queryFn: () => client.admin.records(column.references.table, { filter: { id: { eq: value } }, select: [...new Set(['id', label])], limit: 1, count: 'none' }),
    enabled: target !== undefined && value !== '',
  });
  const options: UntypedRow[] = search.data?.data ?? [];
  const chosenLabel = chosen.data?.data[0]?.[label];

  const pick = (row: UntypedRow) => {
    onChange(String(row.id));
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) setOpen(true);
      else if (options.length > 0) setActive((current) => (current + (event.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (event.key === 'Enter' && open && options[active]) {
      event.preventDefault();
      pick(options[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
    }
  };

  const shown = open && options.length > 0;
  return (
    <div className="reference-picker">
      <input
        {...control}
        role="combobox"
        aria-expanded={shown}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown ? `${listId}-${active}` : undefined}
        value={value}
        placeholder={placeholder ?? `search ${column.references.table} by ${label}, or an id`}
        spellCheck={false}
        autoComplete="off"
        autoFocus={autoFocus}
        onChange={(event) => {
          onChange(event.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {shown && (
        <ul className="reference-options" id={listId} role="listbox" aria-label={`${column.references.table} records`}>
          {options.map((row, index) => (
            <li
              key={String(row.id)}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'active' : undefined}
              // Before the input's blur closes the list.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(row);
              }}
            >
              {String(row[label] ?? row.id)} <span className="muted">({String(row.id)})</span>
            </li>
          ))}
        </ul>
      )}
      {value !== '' && chosen.isSuccess && (
        <span className="reference-chosen muted" aria-live="polite">
          {chosenLabel === undefined ? `no ${column.references.table} record has this id` : `→ ${String(chosenLabel)}`}
        </span>
      )}
    </div>
  );
}
