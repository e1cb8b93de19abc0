import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { client } from '../../api';
import { newPasswordProblem } from '../../auth/passwordRules';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { splitError, type FieldErrors } from '../../errors';
import { hrefOf } from '../../router';
import { tokenFromHash } from './links';

/**
 * Where a reset link lands: anyone holding the link (made by the owner in the Users screen, or by `npm run admin --
 * reset-link <email>`) sets a new password here, signed in or not. The token leaves the address bar once read.
 */
export function ResetScreen() {
  const [token] = useState(() => {
    const found = tokenFromHash(window.location.hash);
    if (found) window.history.replaceState(null, '', window.location.pathname);
    return found;
  });
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const reset = useMutation({ mutationFn: () => client.auth.resetPassword(token, password) });
  const server = splitError(reset.error, ['newPassword']);
  const errors = { ...server.fields, ...checked };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    const problem = newPasswordProblem(password);
    if (problem) problems.newPassword = problem;
    else if (repeat !== password) problems.repeat = 'The two passwords differ.';
    setChecked(problems);
    if (Object.keys(problems).length === 0) reset.mutate();
  };

  return (
    <div className="auth-page">
      <div className="auth-card">
        <h1 className="auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          Set a new password
        </h1>
        {!token ? (
          <p role="alert">This reset link holds no token. Ask the project owner for a new link.</p>
        ) : reset.isSuccess ? (
          <div role="status">
            <p>Your password is set. Every device signed in to this account was signed out.</p>
            <p>
              <a href={hrefOf('')}>Sign in</a> with the new password (or go back to your app).
            </p>
          </div>
        ) : (
          <form className="form" onSubmit={onSubmit} noValidate aria-label="Set a new password">
            <Field label="New password" error={errors.newPassword} hint="At least 8 characters.">
              {(control) => <input {...control} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
            </Field>
            <Field label="Repeat the new password" error={errors.repeat}>
              {(control) => <input {...control} type="password" autoComplete="new-password" value={repeat} onChange={(event) => setRepeat(event.target.value)} />}
            </Field>
            <FormError message={server.form} />
            <FormActions pending={reset.isPending} submitLabel="Set password" pendingLabel="Saving…" />
          </form>
        )}
      </div>
    </div>
  );
}
