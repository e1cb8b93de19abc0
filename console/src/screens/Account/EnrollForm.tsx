import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { TOTP_DIGITS, type TotpEnrollment } from '@basalt/contract';
import { client } from '../../api';
import { normalisedTotpCode, totpCodeProblem } from '../../auth/codeRules';
import { CopyButton } from '../../components/CopyButton';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { splitError } from '../../errors';
import { groupSecret } from './factor';
import { QrCode } from './QrCode';

interface EnrollFormProps {
  enrollment: TotpEnrollment;
  /** The factor is on: its recovery codes (this session now counts as signed in with it). */
  onEnabled: (recoveryCodes: string[]) => void;
  onCancel: () => void;
}

/** Turning two-step sign-in on: the app learns the key (QR code or typed), then its first code proves it did. */
export function EnrollForm({ enrollment, onEnabled, onCancel }: EnrollFormProps) {
  const [code, setCode] = useState('');
  const [checked, setChecked] = useState<string | undefined>();
  const verify = useMutation({
    // New tokens that prove the factor replace this session's (the client stores them); every other session ends.
    mutationFn: () => client.auth.mfa.verify(normalisedTotpCode(code)),
    onSuccess: (result) => onEnabled(result.recoveryCodes),
  });
  const server = splitError(verify.error, ['code']);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problem = totpCodeProblem(code);
    setChecked(problem);
    if (!problem) verify.mutate();
  };

  return (
    <form className="form enroll" onSubmit={onSubmit} noValidate aria-label="Turn on two-step sign-in">
      <ol className="enroll-steps">
        <li>
          <p>Scan this QR code with an authenticator app (such as Google Authenticator, Microsoft Authenticator, 1Password or Aegis).</p>
          <QrCode text={enrollment.uri} label="QR code for your authenticator app" />
        </li>
        <li>
          <p>Or type this key into the app (time-based, 6 digits):</p>
          <div className="copy-line">
            <code className="secret totp-secret" data-testid="totp-secret">
              {groupSecret(enrollment.secret)}
            </code>
            <CopyButton text={enrollment.secret} label="Copy key" />
          </div>
        </li>
        <li>
          <Field label={`${TOTP_DIGITS}-digit code from the app`} error={checked ?? server.fields.code}>
            {(control) => (
              <input
                {...control}
                className="code-input"
                autoComplete="one-time-code"
                inputMode="numeric"
                spellCheck={false}
                value={code}
                onChange={(event) => {
                  setCode(event.target.value);
                  setChecked(undefined);
                  if (verify.isError) verify.reset();
                }}
              />
            )}
          </Field>
        </li>
      </ol>
      <FormError message={server.form} />
      <FormActions pending={verify.isPending} submitLabel="Verify and turn on" pendingLabel="Verifying…" onCancel={onCancel} />
    </form>
  );
}
