import { READ_ONLY_KEY_REASON } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { forbidden, type ApiError } from '../errors.js';
import { authorize, type Operation, type Refusal } from './authorize.js';
import type { Caller } from './caller.js';

/**
 * The one access decision: "may this caller do this to this table, and on which rows?". Every reader asks it: the
 * record pipeline (lists, reads, writes, the reference checks of writes), embeds, realtime (when a stream opens and at
 * every delivery), the OpenAPI document. None rebuilds the 403 or the scope. (PocketBase's `CanAccessRecord` serves its
 * list, view, expand and realtime code the same way.)
 *
 * A decision carries the rows it allows as a condition on them: today the owner scope of `owner-scoped`; the
 * access-rules issue adds a compiled rule beside it, behind this same function.
 */

/** Where a request came in: the app's API (policies apply), or the owner's tools (every row, no policy). */
export type Surface = 'api' | 'admin';

/** The rows a decision allows: the caller's own under owner-scoped (the owner column equals the user id). */
export interface Scope {
  ownerColumn: string;
  userId: string;
}

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

export function decideAccess(table: TableSchema, caller: Caller, operation: Operation, surface: Surface, wording: RefusalWording = {}): AccessDecision {
  // The owner's tools: the caller's role was checked before routing (policies/authorize.ts, authorizeOwnerTools).
  if (surface === 'admin') return EVERY_ROW;
  const decision = authorize(table.effectivePolicy, caller, operation);
  if (!decision.allowed) return { allowed: false, refusal: refusal(table, operation, decision.reason, wording) };
  const scope = decision.ownerScope !== null && table.ownerColumn ? { ownerColumn: table.ownerColumn, userId: decision.ownerScope } : null;
  return { allowed: true, scope, forcedOwner: forcedOwnerColumn(table, surface) };
}

/** The decision, or its 403 thrown. */
export function requireAccess(table: TableSchema, caller: Caller, operation: Operation, surface: Surface, wording?: RefusalWording): { scope: Scope | null; forcedOwner: string | null } {
  const decision = decideAccess(table, caller, operation, surface, wording);
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
