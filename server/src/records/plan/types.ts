import type { ColumnSchema, TableSchema } from '../../db/schema.js';
import type { Scope, WriteRules } from '../authorize.js';
import type { Selection } from '../embed/plan.js';
import type { AggregateQuery } from '../query/aggregate.js';
import type { Condition, ListQuery } from '../query/plan.js';
import type { ExpressionFilter } from '../query/filter.js';

/** What the plan stage hands the build and execute stages: a plain value saying exactly what to do. */

export type Row = Record<string, unknown>;

/** A reference column whose values must name rows the writer owns in the referenced owner-scoped table. */
export interface ReferenceCheck {
  column: string;
  table: TableSchema;
  scope: Scope;
}

export type Plan =
  | { kind: 'list'; table: TableSchema; query: ListQuery; scope: Scope | null }
  | { kind: 'get'; table: TableSchema; id: unknown; rawId: string; scope: Scope | null; selection?: Selection }
  | { kind: 'create'; table: TableSchema; values: Row; writer: string | null; references: ReferenceCheck[]; selection?: Selection; rules?: WriteRules }
  /** A bulk insert: every element validated like a create, all inserted by one statement in the order sent. */
  | { kind: 'create-many'; table: TableSchema; rows: Row[]; writer: string | null; references: ReferenceCheck[]; selection?: Selection; rules?: WriteRules }
  /** Create-or-update in one statement: the body can create the record and the id is unique. */
  | {
      kind: 'upsert';
      table: TableSchema;
      rawId: string;
      insertValues: Row;
      changes: Row;
      scope: Scope | null;
      writer: string | null;
      references: ReferenceCheck[];
      selection?: Selection;
    }
  /**
   * PUT whose body could not create the record (or whose table's id is not unique): update it, and only if there is
   * none create it, or say which required columns the body lacks.
   */
  | {
      kind: 'update-or-create';
      table: TableSchema;
      id: unknown;
      rawId: string;
      insertValues: Row;
      changes: Row;
      missing: string[];
      scope: Scope | null;
      writer: string | null;
      references: ReferenceCheck[];
      selection?: Selection;
      rules?: WriteRules;
      /** An update only (`update`): no row to update is 404, never a create. */
      updateOnly?: boolean;
    }
  | { kind: 'delete'; table: TableSchema; id: unknown; rawId: string; scope: Scope | null; writer: string | null; rules?: WriteRules }
  | ChangeWherePlan
  | UpsertOnPlan
  /** A list whose select has aggregates: groups of rows, paged by cursor over the groups. */
  | { kind: 'aggregate'; table: TableSchema; query: AggregateQuery; scope: Scope | null };


/** The rows a change by filter reads: a list's filters and `filter=`. */
export interface RowFilter {
  conditions: Condition[];
  filter: ExpressionFilter | null;
}

/** A change by filter (PATCH or DELETE on a table): every matching row the caller may change, up to `limit`. */
export interface ChangeWherePlan {
  kind: 'change-where';
  op: 'update' | 'delete';
  table: TableSchema;
  where: RowFilter;
  /** The rows the change may reach: the caller's read scope and, under rules, the update or delete rule. */
  scopes: Array<Scope | null>;
  /** The columns an update sets (none: `updatedAt` only). */
  changes: Row;
  writer: string | null;
  references: ReferenceCheck[];
  limit: number;
  dryRun: boolean;
  /** Under rules: the update's `updateCheck` on each changed row (null: none), and the read rule for the answer. */
  ruled?: { check: Scope | null; read: Scope | null | 'none' };
  selection?: Selection;
}

/** `POST ?onConflict=<key>`: each row updates the one holding its key (the columns it sends), or is inserted. */
export interface UpsertOnPlan {
  kind: 'upsert-on';
  table: TableSchema;
  key: ColumnSchema;
  rows: Row[];
  /** The columns an update sets: those the rows send, but the id, the key and an owner column a preset forces. */
  changed: string[];
  single: boolean;
  /** The rows an update may reach: the preset's scope, or under rules the read and update rules. */
  scopes: Array<Scope | null>;
  writer: string | null;
  references: ReferenceCheck[];
  rules?: WriteRules;
  selection?: Selection;
}
