import { Field } from '../../components/Field';
import { DEFAULT_SIZE_TEXT, SIZE_UNITS, type BucketDraft, type SizeUnit } from './bucketRules';

interface BucketFieldsProps {
  draft: BucketDraft;
  errors: { maxFileSize?: string | undefined; allowedTypes?: string | undefined };
  onChange: (patch: Partial<BucketDraft>, field: 'maxFileSize' | 'allowedTypes') => void;
}

/** A new bucket's settings: the largest file it takes, and the types it takes. */
export function BucketFields({ draft, errors, onChange }: BucketFieldsProps) {
  return (
    <div className="form-row bucket-fields">
      <Field label="Largest file" error={errors.maxFileSize} hint={`Empty: ${DEFAULT_SIZE_TEXT}. Larger uploads are refused (413).`}>
        {(control) => (
          <div className="size-input">
            <input
              {...control}
              value={draft.maxSizeText}
              inputMode="decimal"
              placeholder={DEFAULT_SIZE_TEXT.split(' ')[0]}
              onChange={(event) => onChange({ maxSizeText: event.target.value }, 'maxFileSize')}
            />
            <select aria-label="Unit of the largest file" value={draft.unit} onChange={(event) => onChange({ unit: event.target.value as SizeUnit }, 'maxFileSize')}>
              {Object.keys(SIZE_UNITS).map((unit) => (
                <option key={unit} value={unit}>
                  {unit}
                </option>
              ))}
            </select>
          </div>
        )}
      </Field>
      <Field
        label="Allowed types"
        error={errors.allowedTypes}
        hint={
          <>
            Comma-separated, e.g. <code>image/*, application/pdf</code>. Empty: every type. The server reads a file&rsquo;s type
            from its bytes.
          </>
        }
      >
        {(control) => (
          <input
            {...control}
            value={draft.typesText}
            spellCheck={false}
            autoCapitalize="off"
            placeholder="every type"
            onChange={(event) => onChange({ typesText: event.target.value }, 'allowedTypes')}
          />
        )}
      </Field>
    </div>
  );
}
