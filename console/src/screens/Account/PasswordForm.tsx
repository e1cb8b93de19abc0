import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { client } from '../../api';
import { newPasswordProblem } from '../../auth/passwordRules';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { splitError, type FieldErrors } from '../../errors';

/** Changing the owner's password: other devices are signed out, this one stays signed in. */
export function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const [done, setDone] = useState(false);
  const change = useMutation({
    mutationFn: () => client.auth.changePassword(current, next),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setDone(true);
      onChanged();
    },
  });
  const server = splitError(change.error, ['currentPassword', 'newPassword']);
  const errors = { ...server.fields, ...checked };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    if (!current) problems.currentPassword = 'Enter your current password.';
    const problem = newPasswordProblem(next);
    if (problem) problems.newPassword = problem;
    setChecked(problems);
    setDone(false);
    if (Object.keys(problems).length === 0) change.mutate();
  };
  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <div className="form-row">
        <Field label="Current password" error={errors.currentPassword}>
          {(control) => <input {...control} type="password" autoComplete="current-password" value={current} onChange={(event) => setCurrent(event.target.value)} />}
        </Field>
        <Field label="New password" error={errors.newPassword} hint="At least 8 characters. Your other devices are signed out.">
          {(control) => <input {...control} type="password" autoComplete="new-password" value={next} onChange={(event) => setNext(event.target.value)} />}
        </Field>
      </div>
      <FormError message={server.form} />
      {done && (
        <p className="field-hint" role="status">
          Password changed. Every other device was signed out.
        </p>
      )}
      <FormActions pending={change.isPending} submitLabel="Change password" pendingLabel="Changing…" />
    </form>
  );
}
