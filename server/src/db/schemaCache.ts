import type { Knex } from 'knex';
import { introspect } from './introspect.js';
import { isServed, type TableSchema } from './schema.js';

/**
 * The public schema in memory: tables, columns, types, unique columns, owner column and policy. Requests read it and
 * never the catalog; it is reloaded after every change made through /admin and on `NOTIFY basalt`.
 */
export class SchemaCache {
  private tables = new Map<string, TableSchema>();
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly knex: Knex) {}

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

  private async load(): Promise<void> {
    this.tables = await introspect(this.knex);
  }
}
