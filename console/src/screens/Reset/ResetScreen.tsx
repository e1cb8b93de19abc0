import { useEffect, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { client } from '../../api';
import { NewPasswordForm } from '../../auth/NewPasswordForm';
import { hrefOf } from '../../router';
import { tokenFromHash } from './links';

/**
 * Where a reset link lands: anyone holding the link (made by the owner in the Users screen, or by `npm run admin --
 * reset-link <email>`) sets a new password here, signed in or not. The token leaves the address bar once read.
 */
export function ResetScreen() {
  const [token] = useState(() => tokenFromHash(window.location.hash));
  // In an effect, not while rendering: a render may run twice (StrictMode), and the second would find no token.
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);
  const reset = useMutation({ mutationFn: (password: string) => client.auth.resetPassword(token, password) });

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
          <NewPasswordForm pending={reset.isPending} error={reset.error} submitLabel="Set password" onSubmit={(password) => reset.mutate(password)} />
        )}
      </div>
    </div>
  );
}
