import Joi from 'joi';
import {
  COLUMN_TYPES,
  ALLOWED_TYPE_PATTERN,
  DEFAULT_MAX_FILE_SIZE,
  FILE_COLUMNS,
  MAX_FILE_SIZE_LIMIT,
  TABLE_KINDS,
  type BucketInfo,
  ON_DELETE_RULES,
  POLICIES,
  coerceColumnValue,
  columnNameProblem,
  columnTypeProblem,
  isOwnerColumnName,
  tableNameProblem,
  type ColumnDefinition,
  type ColumnReference,
  type ColumnSettingsInput,
  type CreateTableInput,
  type Policy,
} from '@basalt/contract';
import { invalidField } from '../errors.js';

/** A column definition after validation: defaults filled in, `default` coerced to the column's type. */
export interface ColumnPlan {
  name: string;
  type: ColumnDefinition['type'];
  nullable: boolean;
  unique: boolean;
  /** undefined: no default. */
  default: unknown;
  isOwnerColumn: boolean;
  /** The served table whose id this column holds, and what a delete there does here. */
  references: ColumnReference | null;
  /** `/api` writes may not set it. */
  readOnly: boolean;
  /** A bucket's `size`: int8 rather than the `integer` type's int4 (files past 2 GiB). */
  bigint?: boolean;
}

const columnSchema = Joi.object({
  name: Joi.string().required(),
  type: Joi.string()
    .valid(...COLUMN_TYPES)
    .required(),
  nullable: Joi.boolean().default(true),
  unique: Joi.boolean().default(false),
  readOnly: Joi.boolean().default(false),
  default: Joi.any(),
  references: Joi.object({
    table: Joi.string().required(),
    onDelete: Joi.string()
      .valid(...ON_DELETE_RULES)
      .default('restrict'),
  }).unknown(false),
}).unknown(false);


const createTableSchema = Joi.object({
  name: Joi.string().required(),
  columns: Joi.array().items(Joi.any()).default([]),
  policy: Joi.string().valid(...POLICIES),
  // Checked against the schema by policies/rules.ts once the table exists.
  rules: Joi.any(),
  kind: Joi.string().valid(...TABLE_KINDS).default('records'),
  maxFileSize: Joi.number().integer().strict().min(1).max(MAX_FILE_SIZE_LIMIT),
  allowedTypes: Joi.array()
    .items(Joi.string().strict().pattern(ALLOWED_TYPE_PATTERN).messages({ 'string.pattern.base': 'must be a type such as image/png, image/* or */* (lower case)' }))
    .min(1)
    .max(64),
}).unknown(false);


/** The file columns of a bucket (API.md, Files), before its metadata columns; all set by uploads alone. */
function fileColumns(): ColumnPlan[] {
  const column = (name: string, type: ColumnPlan['type'], extra: Partial<ColumnPlan> = {}): ColumnPlan => ({
    name,
    type,
    nullable: false,
    unique: false,
    default: undefined,
    isOwnerColumn: false,
    references: null,
    readOnly: true,
    ...extra,
  });
  return [
    column('name', 'text'),
    column('type', 'text'),
    column('size', 'integer', { bigint: true }),
    column('sha256', 'text'),
    column('user_id', 'text', { nullable: true, isOwnerColumn: true }),
  ];
}

const policySchema = Joi.object({ policy: Joi.string().valid(...POLICIES), rules: Joi.any() }).or('policy', 'rules').unknown(false);

/** A policy change: a policy, rules, or both (API.md, "Part 2 in detail", Access rules: Setting). */
export interface PolicyChange {
  policy?: Policy;
  /** Unchecked here: checked against the schema by the table service. */
  rules?: unknown;
}

/** `rules` go only with `policy: "rules"` (required there); a preset discards the table's rules. */
function checkPolicyWithRules(change: PolicyChange, creating: boolean): void {
  if (change.policy === 'rules' && change.rules === undefined) throw invalidField('rules', 'policy "rules" needs rules: { read, create, update, updateCheck, delete }');
  if (change.rules !== undefined && change.policy !== undefined && change.policy !== 'rules') {
    throw invalidField('rules', `rules go with policy "rules", not with ${change.policy}`);
  }
  if (creating && change.rules !== undefined && change.policy === undefined) throw invalidField('rules', 'rules go with policy "rules"');
}

export function firstProblem(error: Joi.ValidationError, prefix: string): never {
  const detail = error.details[0];
  const path = detail?.path.join('.') ?? '';
  const field = prefix && path ? `${prefix}.${path}` : prefix || path || 'body';
  const message =
    detail?.type === 'object.unknown'
      ? `${field} is not a known field`
      : detail?.type === 'any.only'
        ? `${field} must be one of ${(detail.context?.valids as unknown[] | undefined)?.join(', ')}`
        : `${field} ${detail?.message.replace(/^"[^"]*" /, '') ?? 'is invalid'}`;
  throw invalidField(field, message);
}

export function assertTableName(name: string, field = 'name'): void {
  const problem = tableNameProblem(name);
  if (problem) throw invalidField(field, problem.startsWith('must') ? `${field} ${problem}` : problem);
}

/** Validates one column definition; `field` is where it sits in the request (`columns.2` or the body). */
export function parseColumnDefinition(input: unknown, field: string): ColumnPlan {
  const { value, error } = columnSchema.validate(input, { abortEarly: true });
  if (error) firstProblem(error, field);
  const definition = value as Required<Omit<ColumnDefinition, 'default'>> & { default?: unknown };
  const at = (key: string) => (field ? `${field}.${key}` : key);
  const nameProblem = columnNameProblem(definition.name);
  if (nameProblem) throw invalidField(at('name'), nameProblem.startsWith('must') ? `column name ${JSON.stringify(definition.name)} ${nameProblem}` : nameProblem);
  const typeProblem = columnTypeProblem(definition.name, definition.type);
  if (typeProblem) throw invalidField(at('type'), typeProblem);
  const isOwnerColumn = isOwnerColumnName(definition.name);
  const references = (value as { references?: ColumnReference }).references ?? null;
  if (references) {
    if (isOwnerColumn) throw invalidField(at('references'), `${definition.name} is an owner column: it references users already`);
    const tableProblem = tableNameProblem(references.table);
    if (tableProblem) throw invalidField(at('references.table'), `references.table ${tableProblem}`);
    if (references.onDelete === 'set-null' && !definition.nullable) {
      throw invalidField(at('references.onDelete'), `set-null needs a nullable column: ${definition.name} is not nullable`);
    }
  }
  let defaultValue: unknown;
  if (definition.default !== undefined && definition.default !== null) {
    // A created integer column is int4; the default is held to that range.
    const coerced = coerceColumnValue({ type: definition.type, pgType: definition.type === 'integer' ? 'int4' : definition.type }, definition.default);
    if (!coerced.ok) throw invalidField(at('default'), `default of ${definition.name} ${coerced.problem}`);
    defaultValue = coerced.value;
  }
  return { name: definition.name, type: definition.type, nullable: definition.nullable, unique: definition.unique, default: defaultValue, isOwnerColumn, references, readOnly: definition.readOnly };
}

export interface TableDefinition {
  name: string;
  columns: ColumnPlan[];
  policy: Policy | undefined;
  rules?: unknown;
  /** A bucket's settings (`kind: "files"`; its file columns are first in `columns`), or null. */
  bucket: BucketInfo | null;
}

export function parseCreateTable(body: unknown): TableDefinition {
  const { value, error } = createTableSchema.validate(body, { abortEarly: true });
  if (error) firstProblem(error, '');
  const input = value as CreateTableInput;
  assertTableName(input.name);
  const metadata = input.columns.map((column, index) => parseColumnDefinition(column, `columns.${index}`));
  const files = input.kind === 'files';
  for (const field of ['maxFileSize', 'allowedTypes'] as const) {
    if (!files && input[field] !== undefined) throw invalidField(field, `${field} goes with kind "files" (a bucket)`);
  }
  if (files) {
    metadata.forEach((column, index) => {
      if ((FILE_COLUMNS as readonly string[]).includes(column.name)) throw invalidField(`columns.${index}.name`, `${column.name} is a file column every bucket has`);
      if (column.isOwnerColumn) throw invalidField(`columns.${index}.name`, `${column.name} is an owner column: a bucket's owner column is user_id, the uploader`);
    });
  }
  const columns = files ? [...fileColumns(), ...metadata] : metadata;
  const bucket = files ? { maxFileSize: input.maxFileSize ?? DEFAULT_MAX_FILE_SIZE, allowedTypes: input.allowedTypes ?? null } : null;
  const seen = new Set<string>();
  metadata.forEach((column, index) => {
    if (seen.has(column.name)) throw invalidField(`columns.${index}.name`, `column ${column.name} is declared twice`);
    seen.add(column.name);
  });
  checkPolicyWithRules(input, true);
  return { name: input.name, columns, policy: input.policy, ...(input.rules !== undefined ? { rules: input.rules } : {}), bucket };
}

const columnSettingsSchema = Joi.object<ColumnSettingsInput>({ readOnly: Joi.boolean().strict().required() }).unknown(false);

/** `PATCH /admin/tables/:name/columns/:column`: `{ readOnly }`. */
export function parseColumnSettings(body: unknown): ColumnSettingsInput {
  const { value, error } = columnSettingsSchema.validate(body, { abortEarly: true });
  if (error) firstProblem(error, '');
  return value;
}

export function parsePolicyChange(body: unknown): PolicyChange {
  const { value, error } = policySchema.validate(body, { abortEarly: true });
  if (error) firstProblem(error, '');
  const change = value as PolicyChange;
  checkPolicyWithRules(change, false);
  return change;
}
