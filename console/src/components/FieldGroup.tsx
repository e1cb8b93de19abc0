import { useId, type ReactNode } from 'react';
import { FieldMessage, fieldClass } from './Field';

interface FieldGroupProps {
  legend: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}

/**
 * A group of controls that answer one question (checkboxes, radios, rows): a fieldset named by its legend, with its
 * hint or error read out with the group, as Field does for one control.
 */
export function FieldGroup({ legend, error, hint, className, children }: FieldGroupProps) {
  const messageId = `${useId()}-message`;
  return (
    <fieldset className={fieldClass('field field-group', error, className)} aria-describedby={error || hint ? messageId : undefined}>
      <legend>{legend}</legend>
      {children}
      <FieldMessage id={messageId} error={error} hint={hint} />
    </fieldset>
  );
}
