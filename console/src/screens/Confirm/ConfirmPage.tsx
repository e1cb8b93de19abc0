import { useEffect, useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { EmailLinkKind } from '@basalt/contract';
import { NewPasswordForm } from '../../auth/NewPasswordForm';
import { FormError } from '../../components/States';
import { describeError } from '../../errors';
import { hrefOf } from '../../router';
import { confirmByToken } from './confirmApi';
import { linkRefusal, parseConfirmFragment, webAddress, type ConfirmLink } from './confirmLink';

const TITLES: Record<EmailLinkKind, string> = {
  verify: 'Confirm your email address',
  'email-change': 'Confirm your new email address',
  recover: 'Set a new password',
  invite: 'Accept your invitation',
  otp: 'Sign in',
};

const explain = (error: unknown) => linkRefusal(error) ?? describeError(error);

/**
 * Basalt's page for a mail's link (`/auth/confirm#type=...&token=...`), for projects whose links do not go to an app
 * of their own. Opening it spends nothing (mail scanners open links): only the visitor's click or password does. The
 * token leaves the address bar once read.
 */
export function ConfirmPage() {
  const [link, setLink] = useState(() => parseConfirmFragment(window.location.hash));
  useEffect(() => {
    forgetFragment();
    // Another mail's link opened in this tab changes only the fragment: no new page load, so it is read here.
    const onHashChange = () => {
      setLink(parseConfirmFragment(window.location.hash));
      forgetFragment();
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  return (
    <div className="auth-page">
      <div className="auth-card">
        <h1 className="auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          {link ? TITLES[link.kind] : 'Open the link from your mail'}
        </h1>
        {link ? (
          <ConfirmStep key={link.token} link={link} />
        ) : (
          <p role="alert">This link is incomplete. Open it again from the mail, or type the mail’s 6-digit code into the app.</p>
        )}
      </div>
    </div>
  );
}

/** Once read, the link's token leaves the address bar and the history entry (in an effect: render stays pure). */
function forgetFragment(): void {
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
}

function ConfirmStep({ link }: { link: ConfirmLink }) {
  const { kind, token } = link;
  switch (kind) {
    case 'verify':
      return (
        <ButtonStep link={link} intro="Confirm that this address is yours." label="Confirm my email address" run={async () => {
            const { user } = await confirmByToken.verify(token);
            return `Your email address ${user.email} is confirmed.`;
          }} />
      );
    case 'email-change':
      return (
        <ButtonStep link={link} intro="Confirm that your account should use this new address from now on." label="Confirm the new address" run={async () => {
            const { user } = await confirmByToken.emailChange(token);
            return `Your account’s email address is now ${user.email}.`;
          }} />
      );
    case 'recover':
    case 'invite':
      return <PasswordStep link={link} />;
    case 'otp':
      return <SignInStep link={link} />;
  }
}

/** After success: on to the app that asked for the mail, or to the console. */
function Done({ link, children }: { link: ConfirmLink; children: ReactNode }) {
  return (
    <div className="form" role="status">
      {children}
      <a className="button button-primary" href={link.redirectTo ?? hrefOf('')}>
        Continue
      </a>
    </div>
  );
}

function ButtonStep({ link, intro, label, run }: { link: ConfirmLink; intro: string; label: string; run: () => Promise<string> }) {
  const action = useMutation({ mutationFn: run });
  if (action.isSuccess) {
    return (
      <Done link={link}>
        <p>{action.data}</p>
      </Done>
    );
  }
  return (
    <div className="form">
      <p>{intro}</p>
      <FormError message={action.isError ? explain(action.error) : undefined} />
      <button type="button" className="button button-primary button-block" disabled={action.isPending} onClick={() => action.mutate()}>
        {action.isPending ? 'Please wait…' : label}
      </button>
    </div>
  );
}

function PasswordStep({ link }: { link: ConfirmLink }) {
  const reset = useMutation({ mutationFn: (password: string) => confirmByToken.setPassword(link.token, password) });
  if (reset.isSuccess) {
    return (
      <Done link={link}>
        <p>
          {link.kind === 'invite'
            ? 'Your password is set and your address confirmed: sign in with it.'
            : 'Your password is set. Every device signed in to this account was signed out: sign in with the new password.'}
        </p>
      </Done>
    );
  }
  return (
    <>
      <p className="muted page-intro">{link.kind === 'invite' ? 'Choose the password of your new account.' : 'Choose a new password for your account.'}</p>
      <NewPasswordForm
        pending={reset.isPending}
        error={reset.error}
        explain={linkRefusal}
        submitLabel="Set password"
        onSubmit={(password) => reset.mutate(password)}
      />
    </>
  );
}

/** A sign-in link hands a one-time code to the app at `redirectTo`, which exchanges it for a session. */
function SignInStep({ link }: { link: ConfirmLink }) {
  const [leaving, setLeaving] = useState<string | null>(null);
  const signIn = useMutation({
    mutationFn: async () => {
      const target = webAddress((await confirmByToken.signInCode(link.token)).redirectTo);
      if (!target) throw new Error('The app’s address is not a web address: type the mail’s code into the app instead.');
      return target;
    },
    onSuccess: (target) => {
      setLeaving(target);
      window.location.assign(target);
    },
  });
  if (!link.redirectTo) {
    return <p>To sign in, type the 6-digit code from the same mail into the app you are signing in to.</p>;
  }
  if (leaving) {
    return (
      <div className="form" role="status">
        <p>Signing you in…</p>
        <a className="button" href={leaving}>
          Continue to the app
        </a>
      </div>
    );
  }
  return (
    <div className="form">
      <p>Continue to sign in to the app.</p>
      <FormError message={signIn.isError ? explain(signIn.error) : undefined} />
      <button type="button" className="button button-primary button-block" disabled={signIn.isPending} onClick={() => signIn.mutate()}>
        {signIn.isPending ? 'Please wait…' : 'Sign in'}
      </button>
    </div>
  );
}
