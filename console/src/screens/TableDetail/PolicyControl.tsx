import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { POLICIES, POLICY_SUMMARIES, type Policy, type Rules, type TableInfo } from '@basalt/contract';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { describeError } from '../../errors';
import { useTableChanged } from './ColumnsPanel';
import { RulesEditor } from './rules/RulesEditor';

type Preset = Exclude<Policy, 'rules'>;

/**
 * The policy: a preset one click away, or one rule per operation. Every change is confirmed first (an owner must not
 * publish a table by a stray click); once confirmed, the API enforces it from the very next request.
 */
export function PolicyControl({ table }: { table: TableInfo }) {
  const tableChanged = useTableChanged();
  const [saved, setSaved] = useState(false);
  const [asking, setAsking] = useState<Preset | null>(null);
  // Rules being written for a table still under a preset: nothing changes until they are saved.
  const [drafting, setDrafting] = useState(false);
  const applied = (updated: TableInfo) => {
    tableChanged(updated);
    setSaved(true);
  };
  const preset = useMutation({
    mutationFn: (policy: Preset) => client.admin.tables.setPolicy(table.name, policy),
    onMutate: () => setSaved(false),
    onSuccess: (updated) => {
      applied(updated);
      setAsking(null);
      setDrafting(false);
    },
  });
  const rules = useMutation({
    mutationFn: (next: Rules) => client.admin.tables.setRules(table.name, next),
    onMutate: () => setSaved(false),
    onSuccess: (updated) => {
      applied(updated);
      setDrafting(false);
    },
  });
  const pending = preset.isPending || rules.isPending;
  const selected: Policy = drafting ? 'rules' : table.policy;

  const choose = (policy: Policy) => {
    if (policy === 'rules') setDrafting(true);
    // Back from unsaved rules to the preset in force: nothing to send.
    else if (policy === table.policy) setDrafting(false);
    else {
      preset.reset();
      setAsking(policy);
    }
  };

  return (
    <section className="card" aria-labelledby="policy-title">
      <div className="card-header">
        <h2 id="policy-title">Policy</h2>
        <span className="muted" role="status">
          {pending ? 'Saving…' : saved ? 'Saved, in effect now' : ''}
        </span>
      </div>
      <fieldset className="policy-options" disabled={pending}>
        <legend className="visually-hidden">Access policy of {table.name}</legend>
        {POLICIES.map((policy) => (
          <label key={policy} className={`policy-option${selected === policy ? ' policy-option-selected' : ''}`}>
            <input type="radio" name={`policy-${table.name}`} value={policy} checked={selected === policy} onChange={() => choose(policy)} />
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
      {table.rulesProblem && (
        <p className="notice notice-warning" role="alert">
          A rule no longer fits the tables (changed outside the console?), so its operation is refused to everyone until it
          is fixed: {table.rulesProblem}
        </p>
      )}
      {selected === 'rules' && <RulesEditor key={`${table.policy} ${JSON.stringify(table.rules)}`} table={table} save={rules} />}
      <ConfirmDialog
        open={asking !== null}
        title={`Set ${table.name} to ${asking ?? ''}?`}
        confirmLabel={`Apply ${asking ?? ''}`}
        busy={preset.isPending}
        error={preset.isError ? describeError(preset.error) : undefined}
        onCancel={() => setAsking(null)}
        onConfirm={() => asking && preset.mutate(asking)}
      >
        {asking && <PresetConsequences table={table} policy={asking} />}
      </ConfirmDialog>
    </section>
  );
}

/** What applying a preset means for this table, said before it happens. */
function PresetConsequences({ table, policy }: { table: TableInfo; policy: Preset }) {
  return (
    <>
      <p>{POLICY_SUMMARIES[policy]}</p>
      {policy === 'public-read' && (
        <p className="notice notice-warning">Every row of {table.name} becomes readable by everyone, anon included.</p>
      )}
      {policy === 'owner-scoped' && !table.ownerColumn && (
        <p className="notice notice-warning">
          {table.name} has no <code>user_id</code> or <code>userId</code> column: the API will treat it as private.
        </p>
      )}
      <p>
        The API applies it from its very next request
        {table.policy === 'rules' ? <>, and the table&rsquo;s rules are discarded</> : null}.
      </p>
    </>
  );
}
