import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import { Field } from '../../../components/Field';
import { FormError } from '../../../components/States';
import { splitError } from '../../../errors';
import { RULE_CHECK_OPERATIONS as CHECK_OPERATIONS, type RuleCheckAnswer as RuleCheck, type RuleCheckInput, type RuleCheckOperation as CheckOperation } from '@basalt/contract';
import { client } from '../../../api';

/** `as`: a user's id, or anon. */
type Caller = string;
import { checkInputOf, takesId, takesRecord } from './checkInput';

/**
 * The state of the "view as" check, kept by the panel: a row's Check button there runs it for that row, the form
 * below for any id (a row the caller cannot see, too) or a record to create.
 */
export function useRuleCheck(table: TableInfo, as: Caller) {
  const [operation, setOperation] = useState<CheckOperation>('read');
  const [id, setId] = useState('');
  const [record, setRecord] = useState('');
  const [problem, setProblem] = useState<{ field: 'id' | 'record'; problem: string } | null>(null);
  const mutation = useMutation({ mutationFn: (input: RuleCheckInput) => client.admin.rules.check(table.name, input) });
  // An answer is about the question asked: changing the question takes it away.
  const changed = () => {
    setProblem(null);
    mutation.reset();
  };
  return {
    operation,
    id,
    record,
    problem,
    mutation,
    setOperation: (next: CheckOperation) => {
      changed();
      setOperation(next);
    },
    setId: (next: string) => {
      changed();
      setId(next);
    },
    setRecord: (next: string) => {
      changed();
      setRecord(next);
    },
    /** Runs the check for the form as it is, or for the row `rowId` (which then fills the id field). */
    run: (rowId?: string) => {
      if (rowId !== undefined) setId(rowId);
      const result = checkInputOf({ as, operation, id: rowId ?? id, record });
      if (!result.ok) {
        setProblem(result);
        mutation.reset();
        return;
      }
      setProblem(null);
      mutation.mutate(result.input);
    },
    clear: () => {
      changed();
      setId('');
      setRecord('');
    },
  };
}

export type RuleCheckState = ReturnType<typeof useRuleCheck>;

export function RuleCheckForm({ check, nameOf }: { check: RuleCheckState; nameOf: (as: Caller) => string }) {
  const { mutation } = check;
  const server = splitError(mutation.error, ['id', 'record']);
  const errorOf = (field: 'id' | 'record') => (check.problem?.field === field ? check.problem.problem : server.fields[field]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    check.run();
  };
  return (
    <form className="rule-check" onSubmit={submit} aria-label="Check an operation" noValidate>
      <div className="form-row">
        <Field label="Operation">
          {(control) => (
            <select {...control} value={check.operation} onChange={(event) => check.setOperation(event.target.value as CheckOperation)}>
              {CHECK_OPERATIONS.map((operation) => (
                <option key={operation} value={operation}>
                  {operation}
                </option>
              ))}
            </select>
          )}
        </Field>
        {takesId(check.operation) && (
          <Field label="Row id" error={errorOf('id')}>
            {(control) => <input {...control} value={check.id} spellCheck={false} autoCapitalize="off" onChange={(event) => check.setId(event.target.value)} />}
          </Field>
        )}
      </div>
      {takesRecord(check.operation) && (
        <Field
          label="Record (JSON, optional)"
          error={errorOf('record')}
          hint={check.operation === 'create' ? 'The row to create; defaults apply as on a real create.' : 'The values written over the row: what updateCheck sees.'}
        >
          {(control) => <textarea {...control} rows={3} value={check.record} spellCheck={false} onChange={(event) => check.setRecord(event.target.value)} />}
        </Field>
      )}
      <FormError message={server.form} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Checking…' : 'Check'}
        </button>
      </div>
      {mutation.data && mutation.variables && <CheckAnswer answer={mutation.data} asked={mutation.variables} nameOf={nameOf} />}
    </form>
  );
}

/** The server's verdict in a sentence, with the rule that decided and the part of it that was false. */
function CheckAnswer({ answer, asked, nameOf }: { answer: RuleCheck; asked: RuleCheckInput; nameOf: (as: Caller) => string }) {
  const what = asked.id !== undefined ? `row ${asked.id}` : 'this record';
  return (
    <div className={`check-answer ${answer.allowed ? 'check-allowed' : 'check-refused'}`} role="status" data-testid="check-answer">
      <p>
        <strong>{answer.allowed ? 'Allowed' : 'Refused'}:</strong> {nameOf(asked.as)} {answer.allowed ? 'may' : 'may not'} {asked.operation} {what}.
      </p>
      {answer.rule ? (
        <p>
          Rule ({answer.operation}): <code>{answer.rule}</code>
        </p>
      ) : (
        <p className="muted">No {answer.operation} rule: refused to everyone.</p>
      )}
      {answer.reason && <p>{answer.reason}</p>}
    </div>
  );
}
