import type { BucketInfo, TableKind } from './files.js';
/** Access policies a table can have. */
export const POLICIES = ['owner-scoped', 'public-read', 'private', 'rules'] as const;
export type Policy = (typeof POLICIES)[number];
/** The three presets (SPEC.md's policies): each is an exact special case of `rules` (presetRules). */
export const PRESET_POLICIES = ['owner-scoped', 'public-read', 'private'] as const satisfies readonly Policy[];

/** What each policy lets anon, members and the owner do, in one line (shown by the console and the docs). */
export const POLICY_SUMMARIES: Record<Policy, string> = {
  'owner-scoped': 'Signed-in users read and write only their own rows; anon gets 403; the owner column is forced to the caller.',
  'public-read': 'Everyone, anon included, reads the whole table; only the project owner writes.',
  private: 'Only the project owner reads and writes.',
  rules: 'One rule per operation (read, create, update, updateCheck, delete), written in the expression language.',
};

/** The members of a `rules` policy: one expression per operation; an absent one refuses it (API.md, "Access rules"). */
export const RULE_MEMBERS = ['read', 'create', 'update', 'updateCheck', 'delete'] as const;
export type RuleMember = (typeof RULE_MEMBERS)[number];
export type Rules = Partial<Record<RuleMember, string>>;

/** `POST /admin/tables/:name/rules/check`: may this caller (a user id, or `anon`) do this, and why (nothing written). */
export const RULE_CHECK_OPERATIONS = ['read', 'create', 'update', 'delete'] as const;
export type RuleCheckOperation = (typeof RULE_CHECK_OPERATIONS)[number];
export interface RuleCheckInput {
  as: string;
  operation: RuleCheckOperation;
  /** The row (read, update, delete); a missing one answers `allowed: false`, `reason: "no such row"`. */
  id?: string;
  /** The record to create, or the changes of an update (checked against `updateCheck` on the row after). */
  record?: Record<string, unknown>;
}
export interface RuleCheckAnswer {
  allowed: boolean;
  operation: RuleCheckOperation;
  /** The rule that decided (a preset's expansion under a preset); null when the operation has none. */
  rule: string | null;
  /** Which part decided: the rule false for the caller whatever the row, no such row, not readable, the row's rule. */
  reason: string;
}
/** The caller the owner looks through (`as`): anon, or a user by id. */
export const AS_ANON = 'anon';

/** Column types a table can be created with; introspected Postgres types are reported as one of these. */
export const COLUMN_TYPES = ['text', 'integer', 'real', 'boolean', 'timestamp', 'json'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** The Postgres type each column type is created as. */
export const COLUMN_SQL_TYPES: Record<ColumnType, string> = {
  text: 'text',
  integer: 'integer',
  real: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
};

/** Columns the server manages on every table it creates. */
export const ID_COLUMN = 'id';
export const CREATED_AT_COLUMN = 'createdAt';
export const UPDATED_AT_COLUMN = 'updatedAt';
export const TIMESTAMP_COLUMNS = [CREATED_AT_COLUMN, UPDATED_AT_COLUMN] as const;
export const MANAGED_COLUMNS = [ID_COLUMN, CREATED_AT_COLUMN, UPDATED_AT_COLUMN] as const;

/** Owner column names, in order of preference. */
export const OWNER_COLUMNS = ['user_id', 'userId'] as const;
export type OwnerColumn = (typeof OWNER_COLUMNS)[number];

/** Tables the auth system manages; they get no generated endpoints and cannot be administered. */
export const RESERVED_TABLES = ['users', 'sessions'] as const;

export const TABLE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;
export const COLUMN_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** List paging. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** Password length in bytes (bcrypt reads at most 72). */
export const PASSWORD_MIN_BYTES = 8;
export const PASSWORD_MAX_BYTES = 72;
export const EMAIL_MAX_LENGTH = 254;

/** What happens to a referencing row when the row it references is deleted. */
export const ON_DELETE_RULES = ['cascade', 'set-null', 'restrict'] as const;
export type OnDelete = (typeof ON_DELETE_RULES)[number];

/** A column that references another served table's `id`. */
export interface ColumnReference {
  table: string;
  onDelete: OnDelete;
}

export interface ColumnInfo {
  name: string;
  type: ColumnType;
  nullable: boolean;
  unique: boolean;
  primaryKey: boolean;
  /** A JSON literal for defaults set through the admin API; a description such as `now()` for other defaults; null when none. */
  default: unknown;
  /** Present on a column that references another served table (made through the API or with psql). */
  references?: ColumnReference;
  /** `/api` writes may not set it (400 naming it); the owner's record routes and SQL can. */
  readOnly: boolean;
}

export interface RowCount {
  value: number;
  /** false when the value is the planner's estimate (big tables). */
  exact: boolean;
}

/** Index kinds: `btree` (plain columns), `search` (full-text on one text column), `other` (anything made with psql). */
export const INDEX_KINDS = ['btree', 'search', 'other'] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];

export interface IndexInfo {
  name: string;
  columns: string[];
  unique: boolean;
  kind: IndexKind;
}

/** `POST /admin/tables/:name/indexes`: `search` takes exactly one text column. */
export interface CreateIndexInput {
  columns: string[];
  kind?: Exclude<IndexKind, 'other'>;
}

export interface TableInfo {
  name: string;
  policy: Policy;
  ownerColumn: OwnerColumn | null;
  /** `private` where `policy` is `owner-scoped` but the table has no owner column. */
  effectivePolicy: Policy;
  /** The table's rules: under a preset its exact expansion (presetRules), so an owner can start from it. */
  rules: Rules;
  /** Why a stored rule no longer compiles (a column changed with psql): its operation is refused until it is fixed. */
  rulesProblem?: string;
  rowCount: RowCount;
  columns: ColumnInfo[];
  indexes: IndexInfo[];
  /**
   * Whether its changes can be captured for realtime streams (and why not when they cannot be), and whether somebody
   * streams it now: only then are its changes logged (docs/realtime.md, "Capture on demand").
   */
  realtime: { captured: boolean; streamed: boolean; problem?: string };
  /** `files`: a bucket, whose rows are files uploaded through `/files/:table` (API.md, Files). */
  kind: TableKind;
  /** A bucket's settings; absent for a table of records. */
  bucket?: BucketInfo;
}

/** A column as the admin API takes it when creating a table or adding a column. */
export interface ColumnDefinition {
  name: string;
  type: ColumnType;
  nullable?: boolean;
  unique?: boolean;
  default?: unknown;
  /** Another served table whose `id` this column holds; `onDelete` defaults to `restrict`. */
  references?: { table: string; onDelete?: OnDelete };
  /** `/api` writes may not set it (a profile's `plan` the user may not change); default false. */
  readOnly?: boolean;
}

/** `PATCH /admin/tables/:name/columns/:column`: what can change of a column without touching its data. */
export interface ColumnSettingsInput {
  readOnly: boolean;
}

export interface CreateTableInput {
  name: string;
  columns: ColumnDefinition[];
  policy?: Policy;
  /** With `policy: "rules"` (required then), refused with any other policy. */
  rules?: Rules;
  /** `files` makes a bucket: the file columns are added, `columns` are its metadata. */
  kind?: TableKind;
  /** A bucket's largest file in bytes (default 50 MiB). */
  maxFileSize?: number;
  /** A bucket's accepted types (`image/*`, `application/pdf`); absent: every type. */
  allowedTypes?: string[];
}
