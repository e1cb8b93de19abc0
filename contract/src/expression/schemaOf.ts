import { embedNameOf } from '../names.js';
import type { ExpressionColumn, ExpressionRelation, ExpressionSchema, ExpressionTable } from './resolved.js';

/**
 * The served tables as the expression language resolves names in them, from each table's name and columns with their
 * references: the server builds it from its schema cache, the console from `GET /admin/tables`, so the rule editor
 * checks names, paths and types in the browser exactly as the server does. Relations are named as embeds name them
 * (API.md, "Relations"): to-one by a reference column (`author_id` -> `author`), to-many by the referencing table.
 */

/** A column as both the admin API's description and the server's schema cache give it. */
export interface SchemaSourceColumn extends ExpressionColumn {
  references?: { table: string } | null | undefined;
}

export interface SchemaSourceTable {
  name: string;
  columns: readonly SchemaSourceColumn[];
}

export function expressionSchemaOf(tables: readonly SchemaSourceTable[]): ExpressionSchema {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const memo = new Map<string, ExpressionTable | undefined>();

  const relationsOf = (table: SchemaSourceTable): ExpressionRelation[] => {
    const relations: ExpressionRelation[] = [];
    for (const column of table.columns) {
      const target = column.references ? byName.get(column.references.table) : undefined;
      if (target) relations.push({ name: embedNameOf(column.name), kind: 'one', table: target.name, column: column.name });
    }
    for (const other of tables) {
      for (const column of other.columns) {
        if (column.references?.table === table.name) relations.push({ name: other.name, kind: 'many', table: other.name, column: column.name });
      }
    }
    return relations;
  };

  return {
    table(name) {
      if (memo.has(name)) return memo.get(name);
      const table = byName.get(name);
      const described = table ? { columns: table.columns, relations: relationsOf(table) } : undefined;
      memo.set(name, described);
      return described;
    },
  };
}
