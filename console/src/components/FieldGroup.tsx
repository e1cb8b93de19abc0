import { useId, type ReactNode } from 'react';

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
    <fieldset
      className={`field field-group${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}
      aria-describedby={error || hint ? messageId : undefined}
    >
      <legend>{legend}</legend>
      {children}
      {error ? (
        <p className="field-error" id={messageId}>
          {error}
        </p>
      ) : hint ? (
        <p className="field-hint" id={messageId}>
          {hint}
        </p>
      ) : null}
    </fieldset>
  );
}
