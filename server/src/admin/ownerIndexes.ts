import type { Knex } from 'knex';
import { ID_COLUMN } from '@basalt/contract';
import { quote } from '../db/identifiers.js';
import type { TableSchema } from '../db/schema.js';
import { listIndexes, safeName } from './indexes.js';

/**
 * The owner column's index is on (owner, id): an owner-scoped list in the default order is then a range of it, taken
 * in order, whatever the planner believes about the table (an index on the owner alone let it fetch and sort all of
 * an owner's rows when statistics were stale: 94-211 ms for a first page at 500,000 rows, issue 22).
 *
 * Tables the admin API made before carry the old index on the owner alone. At start-up one process (an advisory lock)
 * rebuilds each CONCURRENTLY, one table at a time, so reads and writes go on: the new index first, then the old one
 * dropped. A build that fails (or a process stopped during it) leaves an invalid index, dropped on the next try.
 * Tables made with psql get no index from Basalt (docs/api.md says to add one).
 */

export const ownerIndexName = (table: string, ownerColumn: string) => safeName(table, ownerColumn, ID_COLUMN, 'index');
const oldOwnerIndexName = (table: string, ownerColumn: string) => safeName(table, ownerColumn, 'index');
const LOCK = `hashtext('basalt owner indexes')`;

export class OwnerIndexUpgrade {
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly log: (message: string) => void,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Rebuilds the old owner indexes of these tables, in the background; one process at a time. */
  start(tables: readonly TableSchema[]): void {
    this.running ??= this.run(tables.filter((table) => table.ownerColumn !== null)).catch((error: unknown) => {
      if (!this.stopped) this.onError(error);
    });
  }

  /** The run under way (tests wait for it). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** No further table is started; a build under way ends with the process (its invalid index is dropped next time). */
  stop(): void {
    this.stopped = true;
  }

  private async run(tables: TableSchema[]): Promise<void> {
    if (tables.length === 0) return;
    const indexes = await listIndexes(this.knex, tables.map((table) => table.name));
    const due = tables.filter((table) => indexes.get(table.name)?.some((index) => index.name === oldOwnerIndexName(table.name, table.ownerColumn!) && sameColumns(index.columns, [table.ownerColumn!])));
    if (due.length === 0) return;
    // A session lock on a connection of its own, held while the builds run on others.
    const connection = await this.knex.client.acquireConnection();
    try {
      const locked = await this.knex.raw<{ rows: Array<{ held: boolean }> }>(`SELECT pg_try_advisory_lock(${LOCK}) AS held`).connection(connection);
      if (locked.rows[0]?.held !== true) return;
      try {
        for (const table of due) {
          if (this.stopped) return;
          await this.rebuild(table.name, table.ownerColumn!);
        }
      } finally {
        await this.knex.raw(`SELECT pg_advisory_unlock(${LOCK})`).connection(connection);
      }
    } finally {
      await this.knex.client.releaseConnection(connection);
    }
  }

  private async rebuild(table: string, ownerColumn: string): Promise<void> {
    const name = ownerIndexName(table, ownerColumn);
    const old = oldOwnerIndexName(table, ownerColumn);
    const current = (await listIndexes(this.knex, [table])).get(table) ?? [];
    if (!current.some((index) => index.name === old)) return;
    if (!current.some((index) => index.name === name && sameColumns(index.columns, [ownerColumn, ID_COLUMN]))) {
      // An invalid index of this name is what an interrupted build leaves (listIndexes shows only valid ones).
      await this.knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`);
      const started = Date.now();
      try {
        await this.knex.raw(`CREATE INDEX CONCURRENTLY ${quote(name)} ON ${quote(table)} (${quote(ownerColumn)}, ${quote(ID_COLUMN)})`);
      } catch (error) {
        await this.knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`).catch(() => undefined);
        throw error;
      }
      this.log(`owner index of ${table} rebuilt on (${ownerColumn}, ${ID_COLUMN}) as ${name} in ${Date.now() - started} ms`);
    }
    await this.knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(old)}`);
    this.log(`old owner index ${old} of ${table} dropped`);
  }
}

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((column, i) => column === b[i]);
