import { useId, useState, type FormEvent } from 'react';
import type { WebhookInput } from '@basalt/contract';
import { Field } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/States';
import { useFieldErrors } from '../../components/useFieldErrors';
import type { FieldErrors } from '../../errors';
import { HeaderRows } from './HeaderRows';
import { EventsChoice, TablesChoice } from './WebhookChoices';
import { checkWebhook, webhookErrors, type WebhookDraft, type WebhookField } from './webhookDraft';

interface WebhookFormProps {
  title: string;
  initial: WebhookDraft;
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  /** The last refusal of the server: on the field it names, else over the buttons. */
  error: unknown;
  onSubmit: (input: WebhookInput) => void;
  onCancel: () => void;
}

/** A webhook's settings, to create one or change one: checked here first, then by the server. */
export function WebhookForm({ title, initial, submitLabel, pendingLabel, pending, error, onSubmit, onCancel }: WebhookFormProps) {
  const titleId = useId();
  const [draft, setDraft] = useState<WebhookDraft>(initial);
  const [checked, setChecked] = useState<FieldErrors>({});
  const shown = useFieldErrors();
  const server = webhookErrors(error);
  const errors = shown.visible({ ...server.fields, ...checked });

  const edit = (field: WebhookField, patch: Partial<WebhookDraft>) => {
    setDraft((current) => ({ ...current, ...patch }));
    setChecked(({ [field]: _dropped, ...rest }) => rest);
    shown.markEdited(field);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = checkWebhook(draft);
    setChecked(result.errors);
    shown.reset();
    if (result.input) onSubmit(result.input);
  };

  return (
    <form className="card form webhook-form" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <Field label="URL" error={errors.url} hint="Where each change is POSTed, signed with the webhook's secret (Standard Webhooks).">
        {(control) => (
          <input
            {...control}
            type="url"
            inputMode="url"
            value={draft.url}
            spellCheck={false}
            autoCapitalize="off"
            placeholder="https://hooks.example.com/basalt"
            onChange={(event) => edit('url', { url: event.target.value })}
          />
        )}
      </Field>
      <TablesChoice everyTable={draft.everyTable} tables={draft.tables} error={errors.tables} onChange={(choice) => edit('tables', choice)} />
      <EventsChoice events={draft.events} error={errors.events} onChange={(events) => edit('events', { events })} />
      <Field
        label="Filter"
        error={errors.filter}
        hint={
          <>
            Optional, for one table: only the changes whose row matches, in the rules language, e.g. <code>status = 'paid' and total &gt;= 100</code>.
          </>
        }
      >
        {(control) => (
          <input {...control} value={draft.filter} spellCheck={false} autoCapitalize="off" onChange={(event) => edit('filter', { filter: event.target.value })} />
        )}
      </Field>
      <HeaderRows rows={draft.headers} error={errors.headers} onChange={(headers) => edit('headers', { headers })} />
      <div className="field">
        <label className="check">
          <input type="checkbox" checked={draft.enabled} onChange={(event) => edit('enabled', { enabled: event.target.checked })} />
          Enabled: send changes from now on
        </label>
        {errors.enabled && <p className="field-error">{errors.enabled}</p>}
      </div>
      <FormError message={server.form} />
      <FormActions pending={pending} submitLabel={submitLabel} pendingLabel={pendingLabel} onCancel={onCancel} />
    </form>
  );
}
