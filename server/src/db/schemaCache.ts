import type { Knex } from 'knex';
import { introspect } from './introspect.js';
import { parseLsn, type ExpressionSchema } from '@basalt/contract';
import { isServed, type TableSchema } from './schema.js';
import { expressionSchema } from '../policies/rules.js';

/**
 * The public schema in memory: tables, columns, types, unique columns, owner column and policy. Requests read it and
 * never the catalog; it is reloaded after every change made through /admin and on `NOTIFY basalt`.
 */
export class SchemaCache {
  private tables = new Map<string, TableSchema>();
  /** The schema version of the database when the tables were read; record statements carry it as their guard. */
  private loadedVersion = 0;
  /** Completed loads: 0 until the schema is known; it changes on every reload. */
  private loads = 0;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  /** The primary's log position read after the last load (with read replicas: what a standby must have replayed). */
  private loadedLsn = 0n;

  /** `trackPosition`: read the primary's log position after each load (only with read replicas, issue 25). */
  constructor(
    private readonly knex: Knex,
    private readonly trackPosition = false,
  ) {}

  /** The primary's log position after the schema in memory was read: a standby that replayed it has this schema. */
  get lsn(): bigint {
    return this.loadedLsn;
  }

  /** A table `/api` serves, or undefined. */
  served(name: string): TableSchema | undefined {
    const table = this.tables.get(name);
    return table && isServed(table) ? table : undefined;
  }

  /** Any table of the public schema, served or not. */
  any(name: string): TableSchema | undefined {
    return this.tables.get(name);
  }

  /**
   * The reload in progress, if any. Requests wait for it: a notification marks the cache stale at once, so a request
   * that arrives after a change was announced never sees the schema from before it.
   */
  whenFresh(): Promise<void> | undefined {
    return this.queued ?? this.running;
  }

  /** The schema as the expression language resolves names in it (rules, `filter=`), built once per load. */
  expressions(): ExpressionSchema {
    if (this.expressionsOf?.tables !== this.tables) this.expressionsOf = { tables: this.tables, schema: expressionSchema(this.tables) };
    return this.expressionsOf.schema;
  }

  private expressionsOf: { tables: Map<string, TableSchema>; schema: ExpressionSchema } | undefined;

  servedTables(): TableSchema[] {
    return [...this.tables.values()].filter(isServed).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Reloads from the catalog. Calls that arrive while a reload runs share one follow-up reload, which starts after the
   * running one, so every caller sees changes committed before it called.
   */
  reload(): Promise<void> {
    if (!this.running) {
      this.running = this.load().finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.reload();
      });
    return this.queued;
  }

  get version(): number {
    return this.loadedVersion;
  }

  /** Completed loads from the catalog since start (the first one included): what is derived from the tables is kept until it changes. */
  get loadCount(): number {
    return this.loads;
  }

  /**
   * Whether the database's schema version moved past `since` (by default the one loaded): a change this process
   * has not applied yet. Asked only on paths that refuse or find nothing, so a fresh cache costs no round trip.
   */
  async isStale(since = this.loadedVersion): Promise<boolean> {
    const result = await this.knex.raw<{ rows: Array<{ version: number }> }>('SELECT version FROM _basalt_schema');
    return Number(result.rows[0]?.version ?? 0) > since;
  }

  private async load(): Promise<void> {
    const { tables, version } = await introspect(this.knex);
    // Read after the catalog: at least the position of every schema change the load saw.
    if (this.trackPosition) this.loadedLsn = parseLsn(String((await this.knex.raw<{ rows: Array<{ lsn: string }> }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]?.lsn)) ?? 0n;
    this.tables = tables;
    this.loadedVersion = version;
    this.loads += 1;
  }
}
