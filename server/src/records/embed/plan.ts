import { embedNameOf, MAX_EMBED_ROWS, RESERVED_TABLES, type ExpressionSchema } from '@basalt/contract';
import type { ColumnSchema, TableSchema } from '../../db/schema.js';
import { invalidParameter } from '../../errors.js';
import type { Caller } from '../../policies/caller.js';
import { requireAccess, type Scope, type Surface } from '../../policies/access.js';
import type { SelectItem } from '../query/select.js';
import type { EmbedOptions } from '../query/parse.js';
import { planOrder, type OrderTerm } from '../query/order.js';

/**
 * Embedding: each embed of a `select` resolved to a relation (to-one through a reference column of the parent, named
 * by the column without its `_id`/`Id`; to-many through a reference column of another table, named by that table),
 * and authorized for the caller under the embedded table's own policy: a table they cannot read is 403, an
 * owner-scoped one is scoped to their rows.
 */

export interface EmbedPlan {
  /** The JSON key: the name as written. */
  key: string;
  kind: 'one' | 'many';
  table: TableSchema;
  /** to-one: the parent's column holding the id; to-many: the embedded table's column holding the parent's id. */
  column: ColumnSchema;
  columns: ColumnSchema[];
  embeds: EmbedPlan[];
  /** to-many only. */
  order: OrderTerm[];
  limit: number;
  scope: Scope | null;
}

export interface Selection {
  /** The parent's own columns; null: all of them. */
  columns: ColumnSchema[] | null;
  embeds: EmbedPlan[];
}

export interface RelationContext {
  /** The schema cache: tables, and the schema as expressions resolve names (`filter=`). */
  tables: { served(name: string): TableSchema | undefined; servedTables(): TableSchema[]; expressions?(): ExpressionSchema };
  caller: Caller;
  surface: Surface;
}

const refused = (message: string) => invalidParameter('select', `select: ${message}`);

export { embedNameOf };

interface Relation {
  kind: 'one' | 'many';
  table: TableSchema;
  column: ColumnSchema;
  label: string;
}

function relationsFrom(parent: TableSchema, context: RelationContext): Relation[] {
  const relations: Relation[] = [];
  for (const column of parent.referenceColumns) {
    const table = context.tables.served(column.references!.table);
    if (table) relations.push({ kind: 'one', table, column, label: embedNameOf(column.name) });
  }
  for (const table of context.tables.servedTables()) {
    for (const column of table.referenceColumns) {
      if (column.references!.table === parent.name) relations.push({ kind: 'many', table, column, label: `${table.name}.${column.name}` });
    }
  }
  return relations;
}

function resolve(parent: TableSchema, item: Extract<SelectItem, { kind: 'embed' }>, context: RelationContext): Relation {
  if ((RESERVED_TABLES as readonly string[]).includes(item.name)) throw refused(`${item.name} cannot be embedded`);
  if (parent.columns.has(item.name)) throw refused(`"${item.name}" is a column of ${parent.name}, not a relation`);
  const relations = relationsFrom(parent, context);
  const matches = relations.filter((relation) =>
    item.column === null
      ? (relation.kind === 'one' && relation.label === item.name) || (relation.kind === 'many' && relation.table.name === item.name)
      : relation.kind === 'many' && relation.table.name === item.name && relation.column.name === item.column,
  );
  if (matches.length === 1) return matches[0]!;
  const choices = relations.map((relation) => (relation.kind === 'one' ? relation.label : relation.label)).join(', ') || 'none';
  if (matches.length > 1) throw refused(`"${item.name}" is ambiguous: name the column, one of ${matches.map((match) => match.label).join(', ')}`);
  throw refused(`${parent.name} has no relation "${item.column === null ? item.name : `${item.name}.${item.column}`}"; its relations: ${choices}`);
}

function columnsOf(table: TableSchema, items: SelectItem[] | null): ColumnSchema[] | null {
  if (items === null || items.some((item) => item.kind === 'star')) return null;
  return items.flatMap((item) => {
    if (item.kind === 'aggregate') throw refused(`${item.fn}() is taken by lists only (GET on a table), not by single records or writes`);
    if (item.kind !== 'column') return [];
    if (item.alias !== undefined) throw refused(`aliases name the items of a select with aggregates; "${item.alias}:${item.name}" has none`);
    const column = table.columns.get(item.name);
    if (!column) throw refused(`names an unknown column "${item.name}" of ${table.name}`);
    return [column];
  });
}

function planEmbeds(parent: TableSchema, items: SelectItem[], options: Record<string, EmbedOptions>, used: Set<string>, path: string, context: RelationContext): EmbedPlan[] {
  return items.flatMap((item) => {
    if (item.kind !== 'embed') return [];
    const relation = resolve(parent, item, context);
    const key = path ? `${path}.${item.name}` : item.name;
    const { scope } = requireAccess(relation.table, context.caller, 'read', context.surface, { embeddedAs: key });
    const option = options[key];
    if (option) used.add(key);
    if (option && relation.kind === 'one') throw invalidParameter(`${key}.${option.order !== undefined ? 'order' : 'limit'}`, `${key} is one record: it takes no order or limit`);
    return [
      {
        key: item.name,
        kind: relation.kind,
        table: relation.table,
        column: relation.column,
        columns: columnsOf(relation.table, item.items) ?? [...relation.table.columnList],
        embeds: planEmbeds(relation.table, item.items, options, used, key, context),
        order: relation.kind === 'many' ? planOrder(relation.table, option?.order ?? [], `${key}.order`) : [],
        limit: option?.limit ?? MAX_EMBED_ROWS,
        scope,
      },
    ];
  });
}

/** The parent's columns and its embeds; an embed option naming no embed is 400 naming it. */
export function planSelection(table: TableSchema, items: SelectItem[] | null, options: Record<string, EmbedOptions>, context: RelationContext | undefined): Selection {
  const columns = columnsOf(table, items);
  const used = new Set<string>();
  const embeds = items && context ? planEmbeds(table, items, options, used, '', context) : [];
  if (items?.some((item) => item.kind === 'embed') && !context) throw new Error('embeds need the relation context');
  const unused = Object.keys(options).find((key) => !used.has(key));
  if (unused) throw invalidParameter(`${unused}.${options[unused]!.order !== undefined ? 'order' : 'limit'}`, `${unused} is not an embed of this select`);
  // A select of embeds only carries no column of the parent ([]); no select or `*` carries all (null).
  return { columns, embeds };
}
