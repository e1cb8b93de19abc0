import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client } from '../../api';
import { Field } from '../../components/Field';
import { FormError } from '../../components/States';
import { splitError } from '../../errors';
import { keys } from '../../queries';

const queuedText = (queued: number) =>
  queued === 0 ? 'Nothing was queued: no change since then matches this webhook.' : `${queued} ${queued === 1 ? 'change' : 'changes'} queued again.`;

/**
 * Replay: the changes still in the log written since a time, queued again for this webhook (its tables, events and
 * filter apply) as new deliveries. The time is the browser's local time, sent as an instant.
 */
export function ReplayForm({ webhookId }: { webhookId: string }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const [since, setSince] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const replay = useMutation({
    mutationFn: (at: Date) => client.admin.webhooks.replay(webhookId, at),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.allDeliveries(webhookId) }),
  });
  const server = splitError(replay.error, ['since']);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const at = since ? new Date(since) : undefined;
    const local = !at ? 'Choose the time to replay from.' : Number.isNaN(at.getTime()) ? 'Enter a date and a time.' : undefined;
    setProblem(local);
    if (at && !local) replay.mutate(at);
  };

  return (
    <form className="card form replay-form" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>Replay</h2>
      <p className="muted">
        Sends again the changes made since a time (those still in the change log, kept at least 15 minutes), as new deliveries with new
        ids. The receiver gets them as it got the first ones.
      </p>
      <div className="replay-row">
        <Field label="Replay since" error={problem ?? server.fields.since} hint="Your local time.">
          {(control) => (
            <input
              {...control}
              type="datetime-local"
              step={1}
              value={since}
              onChange={(event) => {
                setSince(event.target.value);
                setProblem(undefined);
                replay.reset();
              }}
            />
          )}
        </Field>
        <button type="submit" className="button button-primary" disabled={replay.isPending}>
          {replay.isPending ? 'Replaying…' : 'Replay'}
        </button>
      </div>
      <FormError message={server.form} />
      {replay.isSuccess && (
        <p className="notice" role="status">
          {queuedText(replay.data.queued)}
        </p>
      )}
    </form>
  );
}
