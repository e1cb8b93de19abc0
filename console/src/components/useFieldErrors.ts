import { useState } from 'react';
import type { FieldErrors } from '../errors';

/**
 * Field errors that step aside once their field is edited: a message about the old value must not sit under a new
 * one until the next submit. A field name also covers the names under it (`columns.2` covers `columns.2.name`).
 */
export function useFieldErrors() {
  const [edited, setEdited] = useState<ReadonlySet<string>>(() => new Set());
  const isEdited = (key: string) => [...edited].some((field) => key === field || key.startsWith(`${field}.`));
  return {
    visible: (errors: FieldErrors): FieldErrors => Object.fromEntries(Object.entries(errors).filter(([key]) => !isEdited(key))),
    markEdited: (field: string) => setEdited((current) => (current.has(field) ? current : new Set(current).add(field))),
    /** Every field counts again: the next errors are about what was just sent. */
    reset: () => setEdited(new Set()),
  };
}
