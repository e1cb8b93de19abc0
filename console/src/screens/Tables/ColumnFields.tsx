import { COLUMN_TYPES, ON_DELETE_RULES, type ColumnType, type OnDelete } from '@basalt/contract';
import { Field } from '../../components/Field';
import type { ColumnDraft, ColumnField, ReferenceChoice } from './validation';
// The table page's Add a column renders these fields too: they bring their sheet along.
import './tables.css';

const ON_DELETE_LABELS: Record<OnDelete, string> = {
  restrict: 'restrict: refuse while referenced',
  cascade: 'cascade: delete this row too',
  'set-null': 'set null: empty this column',
};

const DEFAULT_PLACEHOLDERS: Record<ColumnType, string> = {
  text: 'none',
  integer: 'e.g. 0',
  real: 'e.g. 1.5',
  boolean: '',
  timestamp: 'e.g. 2025-01-31T12:00:00Z',
  json: 'e.g. {"tags": []}',
};

interface ColumnFieldsProps {
  draft: ColumnDraft;
  errors: Partial<Record<ColumnField, string>>;
  onChange: (draft: ColumnDraft) => void;
  /** The tables this column may reference (its type then follows the referenced table's id). */
  references: readonly ReferenceChoice[];
}

/** The inputs of one column definition; shared by "create table" (many rows) and "add column" (one). */
export function ColumnFields({ draft, errors, onChange, references }: ColumnFieldsProps) {
  const set = (patch: Partial<ColumnDraft>) => onChange({ ...draft, ...patch });
  const referenced = references.find((choice) => choice.name === draft.referencesTable);
  return (
    <div className="column-fields">
      <Field label="Name" error={errors.name} className="field-name">
        {(control) => (
          <input {...control} value={draft.name} spellCheck={false} autoCapitalize="off" onChange={(event) => set({ name: event.target.value })} />
        )}
      </Field>
      <Field label="Type" error={errors.type} className="field-type">
        {(control) => (
          <select
            {...control}
            value={draft.type}
            // A reference holds the referenced table's id: its type is that id's.
            disabled={referenced !== undefined}
            // A default typed for one type rarely fits another: start it over rather than send a wrong literal.
            onChange={(event) => set({ type: event.target.value as ColumnType, defaultText: '' })}
          >
            {COLUMN_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Default" error={errors.default} className="field-default">
        {(control) =>
          draft.type === 'boolean' ? (
            <select {...control} value={draft.defaultText} onChange={(event) => set({ defaultText: event.target.value })}>
              <option value="">none</option>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input
              {...control}
              value={draft.defaultText}
              placeholder={DEFAULT_PLACEHOLDERS[draft.type]}
              spellCheck={false}
              onChange={(event) => set({ defaultText: event.target.value })}
            />
          )
        }
      </Field>
      <Field label="References" error={errors.references} className="field-references">
        {(control) => (
          <select
            {...control}
            value={draft.referencesTable}
            onChange={(event) => {
              const choice = references.find((candidate) => candidate.name === event.target.value);
              set(choice ? { referencesTable: choice.name, type: choice.idType, defaultText: '' } : { referencesTable: '' });
            }}
          >
            <option value="">nothing</option>
            {references.map((choice) => (
              <option key={choice.name} value={choice.name}>
                {choice.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {referenced && (
        <Field label="On delete" className="field-on-delete">
          {(control) => (
            <select {...control} value={draft.onDelete} onChange={(event) => set({ onDelete: event.target.value as OnDelete })}>
              {ON_DELETE_RULES.map((rule) => (
                <option key={rule} value={rule}>
                  {ON_DELETE_LABELS[rule]}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <div className="checks">
        <label className="check">
          <input type="checkbox" checked={draft.nullable} onChange={(event) => set({ nullable: event.target.checked })} />
          Nullable
        </label>
        <label className="check">
          <input type="checkbox" checked={draft.unique} onChange={(event) => set({ unique: event.target.checked })} />
          Unique
        </label>
      </div>
    </div>
  );
}
