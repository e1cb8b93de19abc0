import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Profile, ResetLink } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { MailNotice } from '../../components/MailNotice';
import { describeError } from '../../errors';
import { keys } from '../../queries';
import { resetAddress } from '../Reset/links';
import { canResend } from './verification';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

type Action = 'signout' | 'delete' | 'remove-mfa';
type Confirming = { action: Action; user: Profile } | null;

const CONFIRM_TITLE: Record<Action, (email: string) => string> = {
  signout: (email) => `Sign out ${email} everywhere?`,
  delete: (email) => `Delete ${email}?`,
  'remove-mfa': (email) => `Remove the second factor of ${email}?`,
};
const CONFIRM_LABEL: Record<Action, string> = { signout: 'Sign out everywhere', delete: 'Delete account', 'remove-mfa': 'Remove second factor' };
const CONFIRM_TEXT: Record<Action, string> = {
  signout: 'Every session ends and every API key of this account is revoked. They can sign in again with their password.',
  delete: 'The account, its sessions and API keys, and its rows in tables whose owner column cascades are deleted. This cannot be undone.',
  'remove-mfa':
    'Two-step sign-in is turned off for this account and its recovery codes stop working: they will sign in with the password alone until they turn it on again.',
};

/**
 * What the owner can do for an account: mail it again, sign it out everywhere, make a reset link, remove its second
 * factor (for a member who lost the app and the recovery codes), delete it.
 */
export function useUserActions() {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [link, setLink] = useState<{ user: Profile; link: ResetLink } | null>(null);
  const act = useMutation({
    mutationFn: async (target: NonNullable<Confirming>) => {
      if (target.action === 'delete') await client.admin.users.delete(target.user.id);
      else if (target.action === 'remove-mfa') await client.admin.users.removeMfa(target.user.id);
      else await client.admin.users.signOut(target.user.id);
    },
    onSuccess: (_result, target) => {
      setConfirming(null);
      if (target.action !== 'signout') void queryClient.invalidateQueries({ queryKey: keys.allUsers });
    },
  });
  const makeLink = useMutation({
    mutationFn: (user: Profile) => client.admin.users.resetLink(user.id),
    onSuccess: (made, user) => setLink({ user, link: made }),
  });
  const [resent, setResent] = useState<{ user: Profile; kind: 'invite' | 'verify' } | null>(null);
  const resend = useMutation({
    mutationFn: (user: Profile) => client.admin.users.resend(user.id),
    onMutate: () => setResent(null),
    onSuccess: (result, user) => {
      setResent({ user, kind: result.kind });
      void queryClient.invalidateQueries({ queryKey: keys.allOutbox });
    },
  });

  const buttons = (user: Profile) =>
    user.role === 'owner' ? (
      <span className="muted">you</span>
    ) : (
      <>
        {canResend(user) && (
          <button
            type="button"
            className="button button-small"
            disabled={resend.isPending}
            title={user.hasPassword ? 'Send the verification mail again' : 'Send the invitation again'}
            onClick={() => resend.mutate(user)}
          >
            Resend<span className="visually-hidden"> mail to {user.email}</span>
          </button>
        )}
        <button type="button" className="button button-small" disabled={makeLink.isPending} onClick={() => makeLink.mutate(user)}>
          Reset link<span className="visually-hidden"> for {user.email}</span>
        </button>
        <button type="button" className="button button-small" onClick={() => {
            act.reset();
            setConfirming({ action: 'signout', user });
          }}>
          Sign out<span className="visually-hidden"> {user.email} everywhere</span>
        </button>
        {user.mfa && (
          <button type="button" className="button button-small" onClick={() => {
              act.reset();
              setConfirming({ action: 'remove-mfa', user });
            }}>
            Remove second factor<span className="visually-hidden"> of {user.email}</span>
          </button>
        )}
        <button type="button" className="button button-small button-danger-quiet" onClick={() => {
            act.reset();
            setConfirming({ action: 'delete', user });
          }}>
          Delete<span className="visually-hidden"> {user.email}</span>
        </button>
      </>
    );

  const panels = (
    <>
      {resend.isError && (
        <p className="form-error" role="alert">
          {describeError(resend.error)}
        </p>
      )}
      {resent && (
        <MailNotice onDismiss={() => setResent(null)}>
          {resent.kind === 'invite' ? 'The invitation' : 'The verification mail'} to {resent.user.email} is queued again.
        </MailNotice>
      )}
      {makeLink.isError && (
        <p className="form-error" role="alert">
          {describeError(makeLink.error)}
        </p>
      )}
      {link && (
        <div className="card callout" role="status" aria-label={`Reset link for ${link.user.email}`}>
          <p>
            <strong>Reset link for {link.user.email}</strong>, single use, valid until {dateTime.format(new Date(link.link.expiresAt))}. Send it to
            them: it sets a new password and signs out every device.
          </p>
          <div className="copy-line">
            <code className="secret" data-testid="reset-link">{resetAddress(window.location.origin, link.link.token)}</code>
            <CopyButton text={resetAddress(window.location.origin, link.link.token)} label="Copy link" />
          </div>
          <button type="button" className="button button-small" onClick={() => setLink(null)}>
            Done
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirming !== null}
        title={confirming ? CONFIRM_TITLE[confirming.action](confirming.user.email) : ''}
        confirmLabel={confirming ? CONFIRM_LABEL[confirming.action] : ''}
        busy={act.isPending}
        error={act.isError ? describeError(act.error) : undefined}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && act.mutate(confirming)}
      >
        <p>{confirming && CONFIRM_TEXT[confirming.action]}</p>
      </ConfirmDialog>
    </>
  );
  return { buttons, panels };
}
