import { useMemo, useState, type FormEvent } from 'react';
import type { UseMutationResult } from '@tanstack/react-query';
import { RULE_MEMBERS, type RuleMember, type Rules, type TableInfo } from '@basalt/contract';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FormError } from '../../../components/States';
import { useFieldErrors } from '../../../components/useFieldErrors';
import { describeError } from '../../../errors';
import { useTables } from '../../../queries';
import { expressionSchemaOf, sourceOf, withTable } from './expressionSchema';
import { RuleField } from './RuleField';
import { draftsOf, ruleProblems, rulesToSend, sameRules, serverRuleProblem, type RuleDrafts } from './ruleText';

interface RulesEditorProps {
  table: TableInfo;
  /** Sends `{ policy: "rules", rules }`; owned by the policy control, which says when a change is in effect. */
  save: UseMutationResult<TableInfo, Error, Rules>;
}

/**
 * One rule per operation, checked in the browser as the owner types (the contract's parser and resolver, against the
 * project's tables), saved after a confirmation that shows the whole set. A refusal by the server shows on its field.
 */
export function RulesEditor({ table, save }: RulesEditorProps) {
  const tables = useTables();
  // Names are checked once the table list is here; until then the syntax alone.
  const schema = useMemo(() => (tables.data ? expressionSchemaOf(withTable(tables.data, table).map(sourceOf)) : undefined), [tables.data, table]);
  const [drafts, setDrafts] = useState<RuleDrafts>(() => draftsOf(table.rules));
  const problems = useMemo(() => ruleProblems(drafts, schema, table.name), [drafts, schema, table.name]);
  const [confirming, setConfirming] = useState(false);
  const [blocked, setBlocked] = useState(false);
  const serverErrors = useFieldErrors();
  const isBucket = table.kind === 'files';

  const refused = serverRuleProblem(save.error);
  // The server's answer is about the text it was sent: it steps aside once that rule is edited.
  const refusedShown = refused && Object.keys(serverErrors.visible({ [refused.member]: refused.problem.message })).length > 0 ? refused : undefined;
  const problemOf = (member: RuleMember) => problems[member] ?? (refusedShown?.member === member ? refusedShown.problem : undefined);
  const invalid = RULE_MEMBERS.filter((member) => problems[member]);

  const rules = rulesToSend(drafts);
  const unchanged = table.policy === 'rules' && sameRules(rules, table.rules);

  const edit = (member: RuleMember, value: string) => {
    setDrafts((current) => ({ ...current, [member]: value }));
    serverErrors.markEdited(member);
    setBlocked(false);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBlocked(invalid.length > 0);
    if (invalid.length > 0) return;
    save.reset();
    setConfirming(true);
  };
  const revert = () => {
    setDrafts(draftsOf(table.rules));
    setBlocked(false);
    save.reset();
  };
  const confirm = () => {
    serverErrors.reset();
    save.mutate(rules, {
      onSuccess: () => setConfirming(false),
      // A refusal about one rule shows on its field, where the owner fixes it; anything else stays in the dialog.
      onError: (error) => {
        if (serverRuleProblem(error)) setConfirming(false);
      },
    });
  };

  return (
    <form className="rules-editor" onSubmit={submit} aria-label={`Rules of ${table.name}`} noValidate>
      {table.policy !== 'rules' && (
        <p className="notice">
          Starting from <strong>{table.effectivePolicy}</strong> written as rules. {table.name} stays {table.policy} until you
          save.
        </p>
      )}
      <p className="field-hint">
        The expression language of the API: columns, paths through relations (<code>project.memberships.user_id</code>),{' '}
        <code>@auth.id</code>, <code>@auth.role</code>, <code>@now</code>; <code>=</code>, <code>!=</code>, <code>in</code>,{' '}
        <code>like</code>, <code>is null</code>, <code>and</code>, <code>or</code>, <code>not</code>.
      </p>
      {isBucket && (
        <p className="field-hint">
          {table.name} is a bucket: its rules decide who uploads (create), downloads (read), replaces (update) and deletes
          files, and see each file&rsquo;s columns, e.g. <code>user_id = @auth.id and type like &apos;image/*&apos; and size &lt; 5000000</code>.
        </p>
      )}
      {RULE_MEMBERS.map((member) => (
        <RuleField key={member} member={member} value={drafts[member]} problem={problemOf(member)} disabled={save.isPending} bucket={isBucket} onChange={(value) => edit(member, value)} />
      ))}
      <FormError message={blocked && invalid.length > 0 ? `Fix ${invalid.join(', ')} first: the server would refuse ${invalid.length > 1 ? 'them' : 'it'}.` : undefined} />
      <FormError message={save.isError && !refused && !confirming ? describeError(save.error) : undefined} />
      <div className="actions">
        <button type="button" className="button" disabled={save.isPending || sameRules(rules, table.rules)} onClick={revert}>
          Revert
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending || unchanged}>
          {table.policy === 'rules' ? 'Save rules' : 'Switch to rules'}
        </button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Apply these rules to ${table.name}?`}
        confirmLabel="Apply rules"
        busy={save.isPending}
        error={save.isError && !refused ? describeError(save.error) : undefined}
        onCancel={() => setConfirming(false)}
        onConfirm={confirm}
      >
        <p>The API answers under them from its very next request{table.policy === 'rules' ? '' : `, instead of ${table.policy}`}:</p>
        <dl className="rule-summary">
          {RULE_MEMBERS.map((member) => (
            <div key={member}>
              <dt>{member}</dt>
              <dd>{rules[member] !== undefined ? <code>{rules[member]}</code> : member === 'updateCheck' ? <span className="muted">as update</span> : <span className="muted">nobody (empty)</span>}</dd>
            </div>
          ))}
        </dl>
        {rules.read?.trim() === 'true' && (
          <p className="notice notice-warning">
            Every row of {table.name} becomes readable by everyone, anon included.
          </p>
        )}
      </ConfirmDialog>
    </form>
  );
}
