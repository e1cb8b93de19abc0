import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnInfo } from '@basalt/contract';
import type { UntypedRow } from '@basalt/client';
import { client } from '../../../api';
import { useTables } from '../../../queries';
import { couldBeId, labelColumnOf, pickerOptions } from './labels';

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
  const table = column.references.table;
  const target = useTables().data?.find((candidate) => candidate.name === table);
  const label = target ? labelColumnOf(target) : 'id';
  const idType = target?.columns.find((candidate) => candidate.name === 'id')?.type ?? 'text';
  // What the search matches: the label column, else a text id itself; an integer id is only looked up whole.
  const searched = label !== 'id' ? label : idType === 'text' ? 'id' : undefined;
  const select = [...new Set(['id', label])];
  const [open, setOpen] = useState(false);
  // No option is active until the arrows pick one: Enter on what was typed keeps it (an id typed in full).
  const [active, setActive] = useState(-1);
  const [term, setTerm] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setTerm(value), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value]);

  const search = useQuery({
    queryKey: ['reference-pick', table, searched, term],
    queryFn: () =>
      client.admin.records(table, {
        filter: term && searched ? { [searched]: { ilike: `*${term}*` } } : {},
        select,
        order: `${searched ?? 'id'}.asc`,
        limit: OPTIONS,
        count: 'none',
      }),
    enabled: target !== undefined && (term === '' || searched !== undefined),
    placeholderData: keepPreviousData,
  });
  // The row whose id is the term: offered first, and named under the field once picked (or typed in full).
  const byId = useQuery({
    queryKey: ['reference-pick', table, 'id', label, term],
    queryFn: () => client.admin.records(table, { filter: { id: { eq: term } }, select, limit: 1, count: 'none' }),
    enabled: target !== undefined && couldBeId(term, idType),
  });
  const idMatch = byId.data?.data[0];
  const options: UntypedRow[] = pickerOptions(idMatch, search.data?.data ?? [], OPTIONS);
  const current = active < options.length ? active : -1;

  const pick = (row: UntypedRow) => {
    onChange(String(row.id));
    setOpen(false);
    setActive(-1);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (options.length === 0) return;
      if (event.key === 'ArrowDown') setActive(current + 1 >= options.length ? 0 : current + 1);
      else setActive(current <= 0 ? options.length - 1 : current - 1);
    } else if (event.key === 'Enter' && open && options[current]) {
      event.preventDefault();
      pick(options[current]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
      setActive(-1);
    }
  };

  const shown = open && options.length > 0;
  // What the value names, once the lookup caught up with it: the row's label, or that no row has this id.
  const settled = value !== '' && term === value && (byId.isSuccess || !couldBeId(term, idType));
  return (
    <div className="reference-picker">
      <input
        {...control}
        role="combobox"
        aria-expanded={shown}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown && current >= 0 ? `${listId}-${current}` : undefined}
        value={value}
        placeholder={placeholder ?? `search ${table} by ${searched ?? 'id'}, or an id`}
        spellCheck={false}
        autoComplete="off"
        autoFocus={autoFocus}
        onChange={(event) => {
          onChange(event.target.value);
          setActive(-1);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {shown && (
        <ul className="reference-options" id={listId} role="listbox" aria-label={`${table} records`}>
          {options.map((row, index) => (
            <li
              key={String(row.id)}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === current}
              className={index === current ? 'active' : undefined}
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
      {settled && (idMatch || !shown) && (
        <span className="reference-chosen muted" aria-live="polite">
          {idMatch ? `→ ${String(idMatch[label] ?? idMatch.id)}` : `no ${table} record has this id`}
        </span>
      )}
    </div>
  );
}
