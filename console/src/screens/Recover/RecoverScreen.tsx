import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { client } from '../../api';
import { emailProblem } from '../../auth/emailRules';
import { Field } from '../../components/Field';
import { FormError } from '../../components/States';
import { splitError } from '../../errors';
import { Link } from '../../router';

/** What the page says after any request, whether or not the address has an account: it must not tell them apart. */
export const RECOVERY_SENT = 'If an account exists for this address, a mail is on its way.';

/** "Forgot password?": asks for a recovery mail, whose link opens the confirm page to set a new password. */
export function RecoverScreen() {
  const [email, setEmail] = useState('');
  const [checked, setChecked] = useState<string | undefined>();
  const recover = useMutation({ mutationFn: (address: string) => client.auth.recover(address) });
  const server = splitError(recover.error, ['email']);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    const problem = emailProblem(address);
    setChecked(problem);
    if (!problem) recover.mutate(address);
  };

  return (
    <div className="auth-page">
      <div className="auth-card">
        <h1 className="auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          Forgot your password?
        </h1>
        {recover.isSuccess ? (
          <div className="form" role="status">
            <p>{RECOVERY_SENT}</p>
            <p className="muted">Open its link to set a new password. It works once, for 24 hours.</p>
          </div>
        ) : (
          <form className="form" onSubmit={onSubmit} noValidate aria-label="Ask for a recovery mail">
            <p className="muted">Enter your account’s address: we send a mail with a link to set a new password.</p>
            <Field label="Email" error={checked ?? server.fields.email}>
              {(control) => (
                <input
                  {...control}
                  type="email"
                  autoComplete="username"
                  value={email}
                  onChange={(event) => {
                    setEmail(event.target.value);
                    setChecked(undefined);
                  }}
                />
              )}
            </Field>
            <FormError message={server.form} />
            <button type="submit" className="button button-primary button-block" disabled={recover.isPending}>
              {recover.isPending ? 'Sending…' : 'Send the recovery mail'}
            </button>
          </form>
        )}
        <p className="auth-footer">
          <Link to="">Back to sign in</Link>
        </p>
      </div>
    </div>
  );
}
