interface FormActionsProps {
  /** The form's request is under way: both buttons are disabled and the submit button says so. */
  pending: boolean;
  submitLabel: string;
  pendingLabel: string;
  /** Shows a Cancel button when given. */
  onCancel?: () => void;
}

/** The row of buttons under a form: Cancel (when it can be left) and the submit button. */
export function FormActions({ pending, submitLabel, pendingLabel, onCancel }: FormActionsProps) {
  return (
    <div className="actions">
      {onCancel && (
        <button type="button" className="button" onClick={onCancel} disabled={pending}>
          Cancel
        </button>
      )}
      <button type="submit" className="button button-primary" disabled={pending}>
        {pending ? pendingLabel : submitLabel}
      </button>
    </div>
  );
}
