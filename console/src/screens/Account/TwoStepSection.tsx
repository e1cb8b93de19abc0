import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { TOTP_DIGITS, type TotpEnrollment } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorState, FormError, Loading } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useMe } from '../../queries';
import { EnrollForm } from './EnrollForm';
import { RecoveryCodes } from './RecoveryCodes';

type Change = 'new-codes' | 'turn-off';

/**
 * The owner's second factor: off -> "Turn on" -> the app learns the key -> its first code turns it on -> the recovery
 * codes, shown once. On: new recovery codes, or turning it off; both need this session to have been signed in with
 * the code (403 MFA_REQUIRED otherwise, which `describeError` explains).
 */
export function TwoStepSection() {
  const queryClient = useQueryClient();
  const me = useMe();
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState<Change | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.me });
  const enroll = useMutation({ mutationFn: () => client.auth.mfa.enroll(), onSuccess: setEnrollment });
  const change = useMutation({
    mutationFn: async (action: Change) => (action === 'turn-off' ? (await client.auth.mfa.remove(), null) : (await client.auth.mfa.newRecoveryCodes()).recoveryCodes),
    onSuccess: (fresh) => {
      setConfirming(null);
      setCodes(fresh);
      refresh();
    },
  });

  const openDialog = (action: Change) => {
    change.reset();
    setConfirming(action);
  };

  const on = me.data?.mfa === true;
  return (
    <section className="card two-step" aria-labelledby="two-step-title">
      <div className="card-header">
        <h2 id="two-step-title">Two-step sign-in</h2>
        {me.data && <span className={`badge ${on ? 'badge-verified' : 'badge-role-member'}`}>{on ? 'on' : 'off'}</span>}
      </div>
      {codes && <RecoveryCodes codes={codes} account={me.data?.email ?? ''} onSaved={() => setCodes(null)} />}
      {me.isPending ? (
        <Loading label="Loading your account…" />
      ) : me.isError ? (
        <ErrorState error={me.error} onRetry={() => void me.refetch()} />
      ) : on ? (
        <>
          <p>Signing in asks for your password and then a code from your authenticator app (or one of your recovery codes).</p>
          <div className="toolbar-actions">
            <button type="button" className="button" onClick={() => openDialog('new-codes')}>
              New recovery codes
            </button>
            <button type="button" className="button button-danger-quiet" onClick={() => openDialog('turn-off')}>
              Turn off
            </button>
          </div>
        </>
      ) : enrollment ? (
        <EnrollForm
          enrollment={enrollment}
          onCancel={() => setEnrollment(null)}
          onEnabled={(recoveryCodes) => {
            setEnrollment(null);
            setCodes(recoveryCodes);
            refresh();
            // Turning it on ended every other session of the account.
            void queryClient.invalidateQueries({ queryKey: keys.sessions });
          }}
        />
      ) : (
        <>
          <p>
            Off: your password alone signs you in. With two-step sign-in on, signing in also asks for a {TOTP_DIGITS}-digit code from an authenticator
            app on your phone, so a leaked password is not enough.
          </p>
          <FormError message={enroll.isError ? describeError(enroll.error) : undefined} />
          <div className="toolbar-actions">
            <button type="button" className="button button-primary" disabled={enroll.isPending} onClick={() => enroll.mutate()}>
              {enroll.isPending ? 'Preparing…' : 'Turn on'}
            </button>
          </div>
        </>
      )}
      <ConfirmDialog
        open={confirming !== null}
        title={confirming === 'turn-off' ? 'Turn off two-step sign-in?' : 'Make new recovery codes?'}
        confirmLabel={confirming === 'turn-off' ? 'Turn off' : 'Make new codes'}
        busy={change.isPending}
        error={change.isError ? describeError(change.error) : undefined}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && change.mutate(confirming)}
      >
        {confirming === 'turn-off' ? (
          <p>Your password alone will sign you in again, and your recovery codes stop working.</p>
        ) : (
          <p>Ten new codes replace your current ones, which stop working at once.</p>
        )}
      </ConfirmDialog>
    </section>
  );
}
