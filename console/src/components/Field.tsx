import { useId, type ReactNode } from 'react';

interface FieldProps {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  /** Renders the control; it receives the id and the aria attributes that tie it to its label and its error. */
  children: (control: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
  className?: string;
}

/** A field's classes: its kind, invalid when it has an error, and the caller's own. */
export function fieldClass(kind: string, error: string | undefined, className: string | undefined): string {
  return `${kind}${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`;
}

/** The error of a field, else its hint, under the id its control (or group) is described by. */
export function FieldMessage({ id, error, hint }: { id: string; error?: string | undefined; hint?: ReactNode }) {
  if (error) {
    return (
      <p className="field-error" id={id}>
        {error}
      </p>
    );
  }
  return hint ? (
    <p className="field-hint" id={id}>
      {hint}
    </p>
  ) : null;
}

/** A labelled control with its hint and its error, the error read out with the control by screen readers. */
export function Field({ label, error, hint, children, className }: FieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <div className={fieldClass('field', error, className)}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': error || hint ? messageId : undefined })}
      <FieldMessage id={messageId} error={error} hint={hint} />
    </div>
  );
}
