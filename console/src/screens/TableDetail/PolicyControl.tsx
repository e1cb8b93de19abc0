import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PRESET_POLICIES, POLICY_SUMMARIES, type Policy, type TableInfo } from '@basalt/contract';
import { client } from '../../api';
import { FormError } from '../../components/States';
import { describeError } from '../../errors';
import { keys } from '../../queries';

/** The policy as a choice that applies at once: the API enforces the new one from the very next request. */
export function PolicyControl({ table }: { table: TableInfo }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (policy: Policy) => client.admin.tables.setPolicy(table.name, policy),
    onSuccess: (updated) => {
      queryClient.setQueryData(keys.table(updated.name), updated);
      void queryClient.invalidateQueries({ queryKey: keys.tables });
    },
  });
  // The choice shows at once (set in the same event as the click, so the controlled radio never snaps back), and
  // gives way to what the server answered, or to the old policy if it refused.
  const [choice, setChoice] = useState<Policy | null>(null);
  const selected = choice ?? table.policy;
  const choose = (policy: Policy) => {
    setChoice(policy);
    change.mutate(policy, { onSettled: () => setChoice(null) });
  };

  return (
    <section className="card" aria-labelledby="policy-title">
      <div className="card-header">
        <h2 id="policy-title">Policy</h2>
        <span className="muted" role="status">
          {change.isPending ? 'Saving…' : change.isSuccess ? 'Saved, in effect now' : ''}
        </span>
      </div>
      <fieldset className="policy-options" disabled={change.isPending}>
        <legend className="visually-hidden">Access policy of {table.name}</legend>
        {PRESET_POLICIES.map((policy) => (
          <label key={policy} className={`policy-option${selected === policy ? ' policy-option-selected' : ''}`}>
            <input
              type="radio"
              name={`policy-${table.name}`}
              value={policy}
              checked={selected === policy}
              onChange={() => choose(policy)}
            />
            <span>
              <strong>{policy}</strong>
              <span className="policy-summary">{POLICY_SUMMARIES[policy]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {table.policy !== table.effectivePolicy && (
        <p className="notice notice-warning">
          {table.name} has no <code>user_id</code> or <code>userId</code> column, so it cannot be scoped to owners: the API
          treats it as <strong>{table.effectivePolicy}</strong>.
        </p>
      )}
      <FormError message={change.isError ? describeError(change.error) : undefined} />
    </section>
  );
}
