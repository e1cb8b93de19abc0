import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { PASSWORD_MIN_BYTES } from '@basalt/contract';
import { API_URL } from '../api';
import { Field } from '../components/Field';
import { useFieldErrors } from '../components/useFieldErrors';
import { ErrorState, FormError, Loading } from '../components/States';
import { splitError, type FieldErrors } from '../errors';
import { useAuthSettings } from '../queries';
import { Link } from '../router';
import { emailProblem } from './emailRules';
import { newPasswordProblem } from './passwordRules';
import { ProviderButtons } from './ProviderButtons';
import { SecondFactorForm } from './SecondFactorForm';
import { createOwner, signIn } from './session';

/** The same rules the server applies, so the common mistakes are caught before a round trip. */
function checkCredentials(email: string, password: string, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  const emailError = emailProblem(email.trim(), 'owner@example.com');
  if (emailError) errors.email = emailError;
  if (!password) errors.password = 'Enter a password.';
  else if (creating) {
    const problem = newPasswordProblem(password);
    if (problem) errors.password = problem;
  }
  return errors;
}

/**
 * Sign-in (the password, or an identity provider, then the second factor when the account has it on), or on a project
 * without an owner yet, the creation of the owner account. `mfaToken`: a provider's sign-in came back needing the
 * second step.
 */
export function SignIn({ notice, mfaToken }: { notice?: string | undefined; mfaToken?: string | undefined }) {
  const settings = useAuthSettings();
  // The sign-in waiting for its second step: the password (or the provider) was right, nothing is stored yet.
  const [pendingStep, setPendingStep] = useState<string | null>(mfaToken ?? null);
  return (
    <div className="auth-page">
      <div className="auth-card">
        <h1 className="auth-brand">
          <span className="brand-mark" aria-hidden="true" />
          Basalt console
        </h1>
        {pendingStep ? (
          <SecondFactorForm mfaToken={pendingStep} onBack={() => setPendingStep(null)} />
        ) : settings.isPending ? (
          <Loading label="Connecting to the API…" />
        ) : settings.isError ? (
          <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
        ) : (
          <>
            <CredentialsForm
              // A fresh form when the project gains its owner, so half-typed "create" input does not carry over.
              key={settings.data.hasOwner ? 'sign-in' : 'create-owner'}
              creating={!settings.data.hasOwner}
              signupEnabled={settings.data.signupEnabled}
              notice={notice}
              onOwnerTaken={() => void settings.refetch()}
              onSecondStep={setPendingStep}
            />
            {settings.data.hasOwner && <ProviderButtons providers={settings.data.providers} />}
          </>
        )}
        <p className="auth-footer muted">API: {API_URL}</p>
      </div>
    </div>
  );
}

interface CredentialsFormProps {
  creating: boolean;
  signupEnabled: boolean;
  notice: string | undefined;
  onOwnerTaken: () => void;
  /** The account has a second factor on: its step's token. */
  onSecondStep: (mfaToken: string) => void;
}

function CredentialsForm({ creating, signupEnabled, notice, onOwnerTaken, onSecondStep }: CredentialsFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const submit = useMutation({
    mutationFn: async () => {
      if (creating) await createOwner({ email: email.trim(), password });
      else {
        const step = await signIn({ email: email.trim(), password });
        if (step) onSecondStep(step.mfaToken);
      }
    },
    onSettled: () => {
      // The owner may now exist (created here, or by someone faster): the form switches to sign-in.
      if (creating) onOwnerTaken();
    },
  });
  const server = splitError(submit.error, ['email', 'password']);
  const shown = useFieldErrors();
  const errors = shown.visible({ ...server.fields, ...checked });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problems = checkCredentials(email, password, creating);
    setChecked(problems);
    shown.reset();
    if (Object.keys(problems).length === 0) submit.mutate();
  };

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <h2>{creating ? 'Create the owner account' : 'Sign in'}</h2>
      <p className="muted">
        {creating
          ? 'This project has no owner yet. The first account becomes the owner, who manages tables, policies and users here.'
          : 'Sign in with the project owner’s account.'}
      </p>
      {creating && !signupEnabled && (
        <p className="notice notice-warning">Sign-up is disabled in config.json, so no owner account can be created until it is enabled.</p>
      )}
      {notice && !submit.isPending && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <Field label="Email" error={errors.email}>
        {(control) => (
          <input {...control} type="email" autoComplete="username" value={email} onChange={(event) => {
              setEmail(event.target.value);
              shown.markEdited('email');
            }} />
        )}
      </Field>
      <Field label="Password" error={errors.password} hint={creating ? `At least ${PASSWORD_MIN_BYTES} characters.` : undefined}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete={creating ? 'new-password' : 'current-password'}
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
              shown.markEdited('password');
            }}
          />
        )}
      </Field>
      {!creating && (
        <p className="auth-aside">
          <Link to="recover">Forgot password?</Link>
        </p>
      )}
      <FormError message={server.form} />
      <button type="submit" className="button button-primary button-block" disabled={submit.isPending}>
        {submit.isPending ? 'Please wait…' : creating ? 'Create the owner account' : 'Sign in'}
      </button>
    </form>
  );
}
