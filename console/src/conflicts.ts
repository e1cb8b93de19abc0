import type { ConflictDetails } from '@basalt/contract';

/**
 * The sentence of a 409 reference conflict: the server's message, with the referencing `<table>.<column>` it names in
 * `details` added when the message does not say it already (a delete refused outside the record routes names only
 * "another record"), so the owner knows where to look before deleting again.
 */
export function conflictMessage(message: string, details: unknown): string {
  if (!details || typeof details !== 'object') return message;
  const { constraint, column } = details as Partial<ConflictDetails>;
  if (constraint !== 'reference' || typeof column !== 'string' || column === '' || message.includes(column)) return message;
  return `${message.replace(/[.\s]+$/, '')} (referenced from ${column}).`;
}
