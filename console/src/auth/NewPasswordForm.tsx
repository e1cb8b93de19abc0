import { useState, type FormEvent } from 'react';
import { PASSWORD_MIN_BYTES } from '@basalt/contract';
import { Field } from '../components/Field';
import { FormActions } from '../components/FormActions';
import { FormError } from '../components/States';
import { splitError, type FieldErrors } from '../errors';
import { newPasswordProblem } from './passwordRules';

interface NewPasswordFormProps {
  pending: boolean;
  /** The server's refusal: under the password when it names `newPassword`, else above the button. */
  error: unknown;
  /** Words of the page's own for a refusal that is not about the password (a used link); undefined: the server's. */
  explain?: (error: unknown) => string | undefined;
  submitLabel: string;
  onSubmit: (password: string) => void;
}

/** A new password typed twice, checked by the server's rule before it is sent (a reset link, a mail's link). */
export function NewPasswordForm({ pending, error, explain, submitLabel, onSubmit }: NewPasswordFormProps) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const server = splitError(error, ['newPassword']);
  const errors = { ...server.fields, ...checked };
  const formError = server.form === undefined ? undefined : (explain?.(error) ?? server.form);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    const problem = newPasswordProblem(password);
    if (problem) problems.newPassword = problem;
    else if (repeat !== password) problems.repeat = 'The two passwords differ.';
    setChecked(problems);
    if (Object.keys(problems).length === 0) onSubmit(password);
  };

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Set a new password">
      <Field label="New password" error={errors.newPassword} hint={`At least ${PASSWORD_MIN_BYTES} characters.`}>
        {(control) => <input {...control} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
      </Field>
      <Field label="Repeat the new password" error={errors.repeat}>
        {(control) => <input {...control} type="password" autoComplete="new-password" value={repeat} onChange={(event) => setRepeat(event.target.value)} />}
      </Field>
      <FormError message={formError} />
      <FormActions pending={pending} submitLabel={submitLabel} pendingLabel="Saving…" />
    </form>
  );
}
