import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client } from '../../api';
import { emailProblem } from '../../auth/emailRules';
import { Field } from '../../components/Field';
import { ListState } from '../../components/ListState';
import { MailNotice } from '../../components/MailNotice';
import { FormError } from '../../components/States';
import { splitError } from '../../errors';
import { keys, useAdminSettings } from '../../queries';
import { Link } from '../../router';

/** How the project sends mail (SMTP_URL, email.from), and a test mail through the same outbox as every other. */
export function EmailPanel() {
  const settings = useAdminSettings();
  return (
    <section className="card" aria-labelledby="email-title">
      <h2 id="email-title">Email</h2>
      <ListState query={settings} pendingLabel="Loading the mail settings…">
        {({ smtp }) => (
          <dl className="key-values">
            <dt>SMTP</dt>
            <dd data-testid="smtp-status">
              {smtp.configured ? (
                'configured (SMTP_URL)'
              ) : (
                <>
                  <span>not configured</span>
                  <p className="field-hint">
                    Without <code>SMTP_URL</code> no mail leaves: each one waits in the <Link to="outbox">Outbox</Link>, where you copy its link or
                    code.
                  </p>
                </>
              )}
            </dd>
            <dt>From</dt>
            <dd>{smtp.from ? <code>{smtp.from}</code> : <span className="muted">not set (email.from in config.json)</span>}</dd>
          </dl>
        )}
      </ListState>
      <TestMailForm />
    </section>
  );
}

function TestMailForm() {
  const queryClient = useQueryClient();
  const [to, setTo] = useState('');
  const [checked, setChecked] = useState<string | undefined>();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: (address: string) => client.admin.sendTestEmail(address),
    onMutate: () => setSentTo(null),
    onSuccess: (_sent, address) => {
      setSentTo(address);
      void queryClient.invalidateQueries({ queryKey: keys.allOutbox });
    },
  });
  const server = splitError(send.error, ['to']);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const address = to.trim();
    const problem = emailProblem(address);
    setChecked(problem);
    if (!problem) send.mutate(address);
  };

  return (
    <form className="form test-mail" onSubmit={onSubmit} noValidate aria-label="Send a test mail">
      <div className="test-mail-row">
        <Field label="Send a test mail to" error={checked ?? server.fields.to}>
          {(control) => (
            <input
              {...control}
              type="email"
              autoComplete="email"
              value={to}
              onChange={(event) => {
                setTo(event.target.value);
                setChecked(undefined);
              }}
            />
          )}
        </Field>
        <button type="submit" className="button" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send test mail'}
        </button>
      </div>
      <FormError message={server.form} />
      {sentTo && <MailNotice onDismiss={() => setSentTo(null)}>A test mail to {sentTo} is queued.</MailNotice>}
    </form>
  );
}
