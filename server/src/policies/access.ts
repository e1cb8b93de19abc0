import { boundOnlyToColumns, foldExpression, foldExpressionForDescription, foldExpressionLeavingId, READ_ONLY_KEY_REASON, type FoldedExpression, type DescribedCaller, RULE_INVALID_REASON, type ExpressionCaller, type ResolvedExpression, type RuleMember } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import type { CompiledRule } from './rules.js';
import { forbidden, type ApiError } from '../errors.js';
import { authorize, type Operation, type Refusal } from './authorize.js';
import { isReadOnly, type Caller } from './caller.js';

/**
 * The one access decision: "may this caller do this to this table, and on which rows?". Every reader asks it: the
 * record pipeline (lists, reads, writes, the reference checks of writes), embeds, realtime (when a stream opens and at
 * every delivery), the OpenAPI document. None rebuilds the 403 or the scope. (PocketBase's `CanAccessRecord` serves its
 * list, view, expand and realtime code the same way.)
 *
 * A decision carries the rows it allows as a condition on them: the owner scope of `owner-scoped` (and of a rule that
 * is exactly `<owner> = @auth.id`, which keeps its index and maintained counts), or a rule folded for the caller.
 */

/** Where a request came in: the app's API (policies apply), or the owner's tools (every row, no policy). */
export type Surface = 'api' | 'admin';

/** The rows a decision allows: the caller's own (the owner column equals the user id), or those a folded rule holds for. */
export type Scope = OwnerScope | RuleScope;
export interface OwnerScope {
  kind: 'owner';
  ownerColumn: string;
  userId: string;
}
export interface RuleScope {
  kind: 'rule';
  /**
   * The rule folded for the caller. Where `bindings` are given, the fold of every caller of this kind (role, key,
   * ...), shared between requests, with `@auth.id` and `@now` left in it, compared with columns only: their values
   * are bound when it is compiled (records/query/expression.ts), so its SQL is built once.
   */
  condition: ResolvedExpression;
  bindings?: RuleBindings;
}
export interface RuleBindings {
  '@auth.id': string | null;
  '@now': Date;
}

/**
 * What is asked of a table: presets know `read` and `write`; under `rules` a write is `create`, `update` (with
 * `updateCheck` on the row after) or `delete`, and presets take each of these as `write`.
 */
export type AccessOperation = Operation | Exclude<RuleMember, 'read'>;

export type AccessDecision =
  /** `scope`: only these rows (null: every row). `forcedOwner`: on writes, this column is the caller, whatever is sent. */
  | { allowed: true; scope: Scope | null; forcedOwner: string | null }
  | { allowed: false; refusal: ApiError };

/** How the 403 names what was refused: a request's operation, or reading it (a stream), or an embed by its key. */
export interface RefusalWording {
  /** Reading for a stream: "to read it". */
  it?: boolean;
  /** Reading as an embed of another table's rows: "to read it (embedded as key)". */
  embeddedAs?: string;
}

const EVERY_ROW = Object.freeze({ allowed: true, scope: null, forcedOwner: null }) as AccessDecision & { allowed: true };

export function decideAccess(
  table: TableSchema,
  caller: Caller,
  operation: AccessOperation,
  surface: Surface,
  wording: RefusalWording = {},
  now: Date = new Date(),
): AccessDecision {
  // The owner's tools: the caller's role was checked before routing (policies/authorize.ts, authorizeOwnerTools).
  if (surface === 'admin') return EVERY_ROW;
  if (table.effectivePolicy === 'rules') return decideByRule(table, caller, operation, wording, now);
  const presetOperation: Operation = operation === 'read' ? 'read' : 'write';
  const decision = authorize(table.effectivePolicy, caller, presetOperation);
  if (!decision.allowed) return { allowed: false, refusal: refusal(table, presetOperation, decision.reason, wording) };
  const scope: Scope | null = decision.ownerScope !== null && table.ownerColumn ? { kind: 'owner', ownerColumn: table.ownerColumn, userId: decision.ownerScope } : null;
  return { allowed: true, scope, forcedOwner: forcedOwnerColumn(table, surface) };
}

/** The caller as rules see them (`@auth.*`): `email` only when verified; an API key carries its account's values. */
export function expressionCaller(caller: Caller): ExpressionCaller {
  if (caller.kind !== 'user') return { id: null, role: null, email: null, key: false, verified: false, aal: null };
  const verified = caller.verified === true;
  return { id: caller.id, role: caller.role, email: verified ? (caller.email ?? null) : null, key: caller.key !== undefined, verified, aal: caller.aal ?? 1 };
}

/**
 * A `rules` table: the operation's member folded for this caller. Absent, false or null whatever the row: 403. True:
 * every row. Exactly `<owner> = @auth.id`: the owner scope. Otherwise the folded condition. A `read` key writes nothing.
 */
function decideByRule(table: TableSchema, caller: Caller, operation: AccessOperation, wording: RefusalWording, now: Date): AccessDecision {
  // A preset's `write` asked of a rules table (nothing asks it so today) is its update.
  const member: RuleMember = operation === 'write' ? 'update' : operation;
  const named = member === 'updateCheck' ? 'update' : member;
  const details = { table: table.name, policy: 'rules', operation: named, ...(operation === 'updateCheck' ? { check: true as const } : {}) };
  if (member !== 'read' && isReadOnly(caller)) {
    return { allowed: false, refusal: forbidden(`The API key is read-only: the key may not ${named} ${table.name}`, { ...details, reason: READ_ONLY_KEY_REASON }) };
  }
  const invalid = table.rules?.invalid[member];
  if (invalid !== undefined) {
    return { allowed: false, refusal: forbidden(`The ${member} rule of ${table.name} no longer compiles: the owner must fix it`, { ...details, reason: RULE_INVALID_REASON }) };
  }
  const rule = table.rules?.compiled[member];
  const { folded, bindings } = rule ? foldFor(rule, caller, now) : { folded: { kind: 'constant', value: false } as const, bindings: undefined };
  if (folded.kind === 'constant') {
    if (folded.value === true) return { allowed: true, scope: null, forcedOwner: null };
    const what = wording.embeddedAs !== undefined ? `read it (embedded as ${wording.embeddedAs})` : wording.it ? 'read it' : operation === 'updateCheck' ? 'update it so' : named;
    return { allowed: false, refusal: forbidden(`The rules of ${table.name} do not allow this caller to ${what}`, details) };
  }
  return { allowed: true, scope: ownerScopeOf(table, folded.condition, caller) ?? { kind: 'rule', condition: folded.condition, ...(bindings ? { bindings } : {}) }, forcedOwner: null };
}

const FOLDS_PER_RULE = 256;

/** Per compiled rule (one per schema load), per kind of caller: the shared fold, or null where the fold needs the values. */
const shared = new WeakMap<CompiledRule, Map<string, FoldedExpression | null>>();

/**
 * The rule folded for the caller: once per kind of caller (everything `@auth.*` says but the id) with `@auth.id` and
 * `@now` left for bindings, when they are only compared with columns (contract's boundOnlyToColumns: the full fold would
 * be the same tree); otherwise folded with every value, for this request alone.
 */
function foldFor(rule: CompiledRule, caller: Caller, now: Date): { folded: FoldedExpression; bindings?: RuleBindings } {
  const values = expressionCaller(caller);
  const kind = `${values.id === null}|${values.role}|${values.email}|${values.key}|${values.verified}|${values.aal}`;
  let byKind = shared.get(rule);
  if (!byKind) shared.set(rule, (byKind = new Map()));
  let folded = byKind.get(kind);
  if (folded === undefined) {
    const template = foldExpressionLeavingId(rule.resolved, values, null);
    folded = template.kind === 'constant' || boundOnlyToColumns(template.condition) ? template : null;
    // The kind includes the verified email: bounded, so that many accounts cannot grow it without end.
    if (byKind.size < FOLDS_PER_RULE) byKind.set(kind, folded);
  }
  if (folded === null) return { folded: foldExpression(rule.resolved, values, now) };
  return { folded, bindings: { '@auth.id': values.id, '@now': now } };
}

/** A folded rule that is exactly `<owner> = <the caller's id>`: the owner scope, with its index and maintained counts. */
function ownerScopeOf(table: TableSchema, condition: ResolvedExpression, caller: Caller): OwnerScope | null {
  if (caller.kind !== 'user' || !table.ownerColumn || condition.kind !== 'compare' || condition.op !== 'eq') return null;
  const [column, value] = condition.left.kind === 'column' ? [condition.left, condition.right] : [condition.right, condition.left];
  if (column.kind !== 'column' || column.path.length > 0 || column.column.name !== table.ownerColumn) return null;
  const callers = (value.kind === 'value' && value.value === caller.id) || (value.kind === 'variable' && value.name === '@auth.id');
  if (!callers) return null;
  return { kind: 'owner', ownerColumn: table.ownerColumn, userId: caller.id };
}

/**
 * The read rule of a `rules` table folded for a signed-in caller with `@auth.id` left a variable (contract's
 * foldExpressionLeavingId): what streams share between subscribers who differ only in their id. Null where there is
 * nothing to share (not a rules table, anon, an invalid rule, or a rule that folds to a constant).
 */
export function readRuleLeavingId(table: TableSchema, caller: Caller, now: Date): ResolvedExpression | null {
  if (table.effectivePolicy !== 'rules' || caller.kind !== 'user' || table.rules?.invalid.read !== undefined) return null;
  const rule = table.rules?.compiled.read;
  if (!rule) return null;
  const folded = foldExpressionLeavingId(rule.resolved, expressionCaller(caller), now);
  return folded.kind === 'condition' ? folded.condition : null;
}

/** The decision, or its 403 thrown. */
export function requireAccess(
  table: TableSchema,
  caller: Caller,
  operation: AccessOperation,
  surface: Surface,
  wording?: RefusalWording,
  now?: Date,
): { scope: Scope | null; forcedOwner: string | null } {
  const decision = decideAccess(table, caller, operation, surface, wording, now);
  if (!decision.allowed) throw decision.refusal;
  return decision;
}

/**
 * The column a write through `/api` sets to the caller, whatever the body says (owner-scoped tables' owner column);
 * on the owner's tools it is an ordinary column.
 */
export function forcedOwnerColumn(table: TableSchema, surface: Surface): string | null {
  return surface === 'api' && table.effectivePolicy === 'owner-scoped' ? table.ownerColumn : null;
}

/** The 403 of a refusal, built here only: which rule refused, with the same details either way (clients read them). */
function refusal(table: TableSchema, operation: Operation, reason: Refusal, wording: RefusalWording): ApiError {
  const rule = { table: table.name, policy: table.effectivePolicy, operation };
  if (reason === 'read-only-key') {
    return forbidden(`The API key is read-only: its user may ${operation} ${table.name}, the key may not`, { ...rule, reason: READ_ONLY_KEY_REASON });
  }
  const what = wording.embeddedAs !== undefined ? `read it (embedded as ${wording.embeddedAs})` : wording.it ? 'read it' : operation;
  return forbidden(`The ${table.effectivePolicy} policy of ${table.name} does not allow this caller to ${what}`, rule);
}

/**
 * Whether the API description lists an operation for a caller (`/openapi.json` is made per role and key kind, not per
 * user): a preset's decision, or under `rules` the rule folded with role, key and anon only (`@auth.id` and the
 * rest unknown but non-null, API.md "Part 2 in detail"), listed unless it folds to false or null.
 */
export function describesAccess(table: TableSchema, caller: Caller, operation: 'read' | 'write'): boolean {
  if (table.effectivePolicy !== 'rules') return decideAccess(table, caller, operation, 'api').allowed;
  if (operation === 'write' && isReadOnly(caller)) return false;
  const members: RuleMember[] = operation === 'read' ? ['read'] : ['create', 'update', 'delete'];
  const described: DescribedCaller = caller.kind === 'user' ? { anon: false, role: caller.role, key: caller.key !== undefined } : { anon: true };
  return members.some((member) => {
    const rule = table.rules?.compiled[member];
    if (!rule || table.rules?.invalid[member] !== undefined) return false;
    const folded = foldExpressionForDescription(rule.resolved, described);
    return folded.kind === 'condition' || folded.value === true;
  });
}
