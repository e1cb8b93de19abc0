import { useEffect, useId, useRef, type ReactNode } from 'react';
import { FormError } from './States';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  /** Keeps the confirm button off until the user has done what the dialog asks (e.g. typed the name). */
  confirmDisabled?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before anything that cannot be undone (dropping a table or a column, deleting a row). A native modal
 * <dialog>: focus is trapped and Escape cancels without extra code.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busy, confirmDisabled, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <FormError message={error} />
      <div className="actions">
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="button button-danger" onClick={onConfirm} disabled={busy || confirmDisabled}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
