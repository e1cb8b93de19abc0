import { checkExpression, parseExpression, RULE_MEMBERS, type ExpressionSchema, type RuleMember, type Rules } from '@basalt/contract';
import { isApiError } from '@basalt/client';

/**
 * The rule editor's pure side: the texts being edited, what is sent, and where a problem is, whether the browser
 * found it as the owner typed or the server answered it on save (API.md, "Access rules": `details.field` is
 * `rules.<member>`, `details.position` a 0-based index in UTF-16 code units).
 */

export type RuleDrafts = Record<RuleMember, string>;

export interface RuleProblem {
  message: string;
  /** 0-based, in UTF-16 code units, as the parser and the server count; absent when the server named no position. */
  position?: number | undefined;
}

/** Every member's text: a table's description always carries its rules (a preset's expansion), absent ones empty. */
export function draftsOf(rules: Rules): RuleDrafts {
  return Object.fromEntries(RULE_MEMBERS.map((member) => [member, rules[member] ?? ''])) as RuleDrafts;
}

const isBlank = (text: string) => text.trim() === '';

/**
 * The rules to send: an empty member is absent (its operation refused for everyone; `updateCheck` then follows
 * `update`). Texts go as typed, so the positions the server answers with are positions in what the owner sees.
 */
export function rulesToSend(drafts: RuleDrafts): Rules {
  const rules: Rules = {};
  for (const member of RULE_MEMBERS) if (!isBlank(drafts[member])) rules[member] = drafts[member];
  return rules;
}

/** Whether two sets of rules say the same, member by member (an empty member and an absent one alike). */
export function sameRules(a: Rules, b: Rules): boolean {
  return RULE_MEMBERS.every((member) => (isBlank(a[member] ?? '') ? '' : a[member]) === (isBlank(b[member] ?? '') ? '' : b[member]));
}

/**
 * The problem of one rule as the server would find it: syntax, then names, paths and types against the schema. An
 * empty rule has none. Without a schema yet (the table list is loading) only the syntax is checked.
 */
export function ruleProblem(text: string, schema: ExpressionSchema | undefined, table: string): RuleProblem | undefined {
  if (isBlank(text)) return undefined;
  const checked = schema ? checkExpression(text, schema, table) : parseExpression(text);
  return checked.ok ? undefined : { message: checked.error.problem, position: checked.error.position };
}

export function ruleProblems(drafts: RuleDrafts, schema: ExpressionSchema | undefined, table: string): Partial<Record<RuleMember, RuleProblem>> {
  const problems: Partial<Record<RuleMember, RuleProblem>> = {};
  for (const member of RULE_MEMBERS) {
    const problem = ruleProblem(drafts[member], schema, table);
    if (problem) problems[member] = problem;
  }
  return problems;
}

/**
 * The member a server refusal is about, with its problem in the editor's words: the server's message says
 * `rules.read: <problem> at <position>`; the field already names the member and the mark shows the position.
 */
export function serverRuleProblem(error: unknown): { member: RuleMember; problem: RuleProblem } | undefined {
  if (!isApiError(error) || typeof error.details?.field !== 'string') return undefined;
  const member = /^rules\.(.+)$/.exec(error.details.field)?.[1];
  if (!member || !(RULE_MEMBERS as readonly string[]).includes(member)) return undefined;
  const position = typeof error.details.position === 'number' ? error.details.position : undefined;
  let message = error.message.startsWith(`${error.details.field}: `) ? error.message.slice(error.details.field.length + 2) : error.message;
  if (position !== undefined && message.endsWith(` at ${position}`)) message = message.slice(0, -` at ${position}`.length);
  return { member: member as RuleMember, problem: { message, position } };
}

/** How much of the line shows on each side of a marked position. */
const CONTEXT = 32;

export interface MarkedPosition {
  /** 1-based line and column (columns count characters, so an emoji is one) for the message. */
  line: number;
  column: number;
  /** The excerpt of that line: text before the mark, the marked character ('' past the end), text after. */
  before: string;
  at: string;
  after: string;
}

/** A position in a rule's text as the editor shows it: the line and column, and the character marked in its line. */
export function markPosition(text: string, position: number): MarkedPosition {
  const at = Math.max(0, Math.min(position, text.length));
  const lineStart = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
  const newline = text.indexOf('\n', at);
  const lineEnd = newline === -1 ? text.length : newline;
  const line = text.slice(0, lineStart).split('\n').length;
  const code = text.codePointAt(at);
  const width = at >= lineEnd || code === undefined ? 0 : code > 0xffff ? 2 : 1;
  const from = Math.max(lineStart, at - CONTEXT);
  const to = Math.min(lineEnd, at + width + CONTEXT);
  return {
    line,
    column: [...text.slice(lineStart, at)].length + 1,
    before: (from > lineStart ? '…' : '') + text.slice(from, at),
    at: text.slice(at, at + width),
    after: text.slice(at + width, to) + (to < lineEnd ? '…' : ''),
  };
}
