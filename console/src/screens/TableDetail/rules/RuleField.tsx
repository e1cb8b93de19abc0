import { useId, useRef } from 'react';
import type { RuleMember } from '@basalt/contract';
import { markPosition, type RuleProblem } from './ruleText';

/** What each member decides, and what leaving it empty means (API.md, "Access rules"). */
const HINTS: Record<RuleMember, string> = {
  read: 'Which rows exist for the caller. Empty: nobody reads through the API.',
  create: 'Checked on the row as it would be stored. Empty: nobody creates.',
  update: 'Holds on the row before the change. Empty: nobody updates.',
  updateCheck: 'Holds on the row after the change. Empty: the update rule.',
  delete: 'Which rows the caller may delete. Empty: nobody deletes.',
};

/** The same for a bucket, whose rows are files: reading is downloading, creating is uploading. */
const BUCKET_HINTS: Record<RuleMember, string> = {
  read: 'Which files the caller lists and downloads (and signs links to). Empty: nobody reads through the API.',
  create: 'Checked on the uploaded file’s row (name, type, size, user_id, metadata) before it is stored. Empty: nobody uploads.',
  update: 'Holds on the row before a replacement or a metadata change. Empty: nobody changes files.',
  updateCheck: 'Holds on the row after the replacement or change. Empty: the update rule.',
  delete: 'Which files the caller may delete (their bytes go too). Empty: nobody deletes.',
};

interface RuleFieldProps {
  member: RuleMember;
  value: string;
  problem: RuleProblem | undefined;
  disabled: boolean;
  /** The table is a bucket: the hints speak of files. */
  bucket?: boolean;
  onChange: (value: string) => void;
}

/** One rule's text, with its problem under it and the place it is about marked in a copy of its line. */
export function RuleField({ member, value, problem, disabled, bucket = false, onChange }: RuleFieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  const input = useRef<HTMLTextAreaElement>(null);
  const mark = problem?.position === undefined ? undefined : markPosition(value, problem.position);
  const showInText = () => {
    const field = input.current;
    if (!field || problem?.position === undefined) return;
    field.focus();
    field.setSelectionRange(problem.position, Math.min(value.length, problem.position + 1));
  };
  return (
    <div className={`field rule-field${problem ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>
        <code>{member}</code>
      </label>
      <textarea
        id={id}
        ref={input}
        rows={2}
        value={value}
        disabled={disabled}
        spellCheck={false}
        autoCapitalize="off"
        autoCorrect="off"
        aria-invalid={Boolean(problem)}
        aria-describedby={messageId}
        onChange={(event) => onChange(event.target.value)}
      />
      {problem ? (
        <div className="field-error rule-problem" id={messageId}>
          <p>
            {problem.message}
            {mark && (
              <>
                {' '}
                <button type="button" className="rule-position" onClick={showInText}>
                  (line {mark.line}, column {mark.column})
                </button>
              </>
            )}
          </p>
          {mark && (
            <pre className="rule-excerpt" data-testid={`rule-excerpt-${member}`}>
              {mark.before}
              <mark aria-label={mark.at ? `here: ${mark.at}` : 'here: the end'}>{mark.at || ' '}</mark>
              {mark.after}
            </pre>
          )}
        </div>
      ) : (
        <p className="field-hint" id={messageId}>
          {(bucket ? BUCKET_HINTS : HINTS)[member]}
        </p>
      )}
    </div>
  );
}
