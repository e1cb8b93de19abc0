import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { TOTP_DIGITS } from '@basalt/contract';
import { Field } from '../components/Field';
import { useFieldErrors } from '../components/useFieldErrors';
import { FormError } from '../components/States';
import { splitError, type FieldErrors } from '../errors';
import { normalisedRecoveryCode, normalisedTotpCode, recoveryCodeProblem, totpCodeProblem } from './codeRules';
import { answerSecondFactor } from './session';

const STEP_ENDED = 'This sign-in has expired or had too many wrong codes: go back and sign in again.';

/**
 * The sign-in's second step, after the password (or a provider) was right for an account with two-step sign-in on:
 * the authenticator app's current code, or one of the recovery codes.
 */
export function SecondFactorForm({ mfaToken, onBack }: { mfaToken: string; onBack: () => void }) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [checked, setChecked] = useState<FieldErrors>({});
  const shown = useFieldErrors();
  const field = useRecovery ? 'recoveryCode' : 'code';
  const answer = useMutation({
    mutationFn: () =>
      answerSecondFactor(mfaToken, useRecovery ? { recoveryCode: normalisedRecoveryCode(value) } : { code: normalisedTotpCode(value) }),
    // The owner is in and the console replaces this card; a member was refused: the password form says so.
    onSuccess: onBack,
  });
  const server = splitError(answer.error, ['code', 'recoveryCode', 'mfaToken']);
  // The step itself is spent (expired, used, voided by wrong codes): no code can help now, only signing in again.
  const ended = server.fields.mfaToken !== undefined;
  const errors = shown.visible({ ...server.fields, ...checked });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problem = useRecovery ? recoveryCodeProblem(value) : totpCodeProblem(value);
    setChecked(problem ? { [field]: problem } : {});
    shown.reset();
    if (!problem) answer.mutate();
  };
  const switchKind = () => {
    setUseRecovery(!useRecovery);
    setValue('');
    setChecked({});
    answer.reset();
  };

  return (
    <form className="form" onSubmit={onSubmit} noValidate aria-label="Two-step sign-in">
      <h2>Two-step sign-in</h2>
      <p className="muted">
        {useRecovery
          ? 'Enter one of the recovery codes you saved when you turned two-step sign-in on. Each code works once.'
          : `Enter the ${TOTP_DIGITS}-digit code from your authenticator app.`}
      </p>
      <Field label={useRecovery ? 'Recovery code' : `${TOTP_DIGITS}-digit code`} error={errors[field]}>
        {(control) => (
          <input
            {...control}
            // A fresh input per kind: the browser's one-time-code autofill must not land in the recovery field.
            key={field}
            autoFocus
            autoComplete={useRecovery ? 'off' : 'one-time-code'}
            inputMode={useRecovery ? 'text' : 'numeric'}
            spellCheck={false}
            autoCapitalize={useRecovery ? 'characters' : 'off'}
            value={value}
            onChange={(event) => {
              setValue(event.target.value);
              shown.markEdited(field);
            }}
          />
        )}
      </Field>
      <p className="auth-aside">
        <button type="button" className="link-button" onClick={switchKind}>
          {useRecovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
        </button>
      </p>
      <FormError message={ended ? STEP_ENDED : server.form} />
      <button type="submit" className="button button-primary button-block" disabled={answer.isPending || ended}>
        {answer.isPending ? 'Checking…' : 'Verify and sign in'}
      </button>
      <button type="button" className="button button-block" onClick={onBack} disabled={answer.isPending}>
        Back to sign-in
      </button>
    </form>
  );
}
