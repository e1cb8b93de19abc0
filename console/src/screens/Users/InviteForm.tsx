import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { emailProblem } from '../../auth/emailRules';
import { client } from '../../api';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { splitError } from '../../errors';
import { keys } from '../../queries';
import { ACCOUNT_EXISTS, isAccountTaken } from './verification';

/** Invites a member by address: the account is made now, and its mail's link sets the password. */
export function InviteForm({ onInvited, onCancel }: { onInvited: (email: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [checked, setChecked] = useState<string | undefined>();
  const invite = useMutation({
    mutationFn: (address: string) => client.admin.users.invite(address),
    onSuccess: (invitation) => {
      void queryClient.invalidateQueries({ queryKey: keys.allUsers });
      void queryClient.invalidateQueries({ queryKey: keys.allOutbox });
      onInvited(invitation.email);
    },
  });
  const server = isAccountTaken(invite.error) ? { fields: { email: ACCOUNT_EXISTS }, form: undefined } : splitError(invite.error, ['email']);
  const emailError = checked ?? server.fields.email;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    const problem = emailProblem(address);
    setChecked(problem);
    if (!problem) invite.mutate(address);
  };

  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-label="Invite a user">
      <h2>Invite a user</h2>
      <p className="muted">They get a mail with a link and a code to set their password. Invited accounts are members.</p>
      <Field label="Email address" error={emailError}>
        {(control) => (
          <input
            {...control}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              setChecked(undefined);
              invite.reset();
            }}
          />
        )}
      </Field>
      <FormError message={server.form} />
      <FormActions pending={invite.isPending} submitLabel="Send invite" pendingLabel="Sending…" onCancel={onCancel} />
    </form>
  );
}
