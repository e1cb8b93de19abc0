import type { StatementPool } from '../../db/preparedPool.js';
import type { TableSchema } from '../../db/schema.js';
import { StaleSchemaError } from '../../db/fresh.js';
import { KEY_PREFIX, PRESENT, VERSION, type Built } from '../build/index.js';
import type { Row } from '../plan/index.js';

/** Running a built statement on the record pool, and reading its bookkeeping columns apart from the records. */

/** Runs a prepared statement on the pool: the server parses and plans it once per connection. */
export async function run(pool: StatementPool, { statement, values }: Built): Promise<Row[]> {
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

const isBookkeeping = (name: string) => name.startsWith('__basalt_');

interface Shaped {
  /** The records, without the bookkeeping columns. */
  records: Row[];
  /** The bookkeeping columns of the first row (total, version, ...). */
  first: Row;
  /** The order keys of the record at `keysOf` (for a cursor), in order. */
  keys: Array<string | null>;
}

/**
 * Runs a statement whose rows carry bookkeeping columns and builds the records without them. Deleting properties
 * from the driver's row objects would turn them into slow dictionaries, which JSON.stringify then crawls through.
 */
export async function runShaped(pool: StatementPool, { statement, values }: Built, keysOf = -1): Promise<Shaped> {
  const result = await pool.query<unknown[]>({ name: statement.name, text: statement.text, values, rowMode: 'array' });
  const names = result.fields.map((field) => field.name);
  const keep = names.map((name) => !isBookkeeping(name));
  const presentAt = names.indexOf(PRESENT);
  const first: Row = {};
  const records: Row[] = [];
  let keys: Array<string | null> = [];
  result.rows.forEach((cells, index) => {
    if (index === 0) names.forEach((name, column) => !keep[column] && (first[name] = cells[column]));
    // Outer joins mark the rows that carry a record; a page past the end is one row of bookkeeping only.
    if (presentAt >= 0 && cells[presentAt] !== true) return;
    if (records.length === keysOf) keys = names.flatMap((name, column) => (name.startsWith(KEY_PREFIX) ? [cells[column] as string | null] : []));
    const record: Row = {};
    for (let column = 0; column < names.length; column++) if (keep[column]) record[names[column]!] = cells[column];
    records.push(record);
  });
  return { records, first, keys };
}

/** The planner's row estimate of a statement's `EXPLAIN (FORMAT JSON)`. */
export function plannedRows(rows: Row[]): number {
  const plan = (rows[0]?.['QUERY PLAN'] as Array<{ Plan?: { 'Plan Rows'?: unknown } }> | undefined)?.[0]?.Plan;
  return Math.round(Number(plan?.['Plan Rows'] ?? 0));
}

/** Reads carry the published schema version: a newer one means the plan came from an outdated cache. */
export function checkVersion(table: TableSchema, first: Row): void {
  if (Number(first[VERSION] ?? 0) > table.schemaVersion) throw new StaleSchemaError();
}
