import type pg from 'pg';

/** Named statements one connection keeps at most; past it the least recently used is deallocated. */
export const MAX_PREPARED_PER_CONNECTION = 200;

/** The driver's record of what it prepared on a connection (it skips the Parse step for names in here). */
interface DriverConnection {
  parsedStatements: Record<string, string>;
}

/**
 * The record API's pool: every statement is a named prepared statement (parsed and planned once per connection),
 * and each connection keeps a bounded number of them. Without the bound, query shapes (filters, select lists, body
 * key sets) and every schema reload's new names would grow each server process's memory without end.
 *
 * It also keeps a connection whose statement failed with an ordinary SQL error (a unique violation, a timeout):
 * `pool.query` releases the client with the error, which closes the connection and loses its prepared statements.
 */
/** What runs the record pipeline's statements: the primary's record pool, or a standby's for reads. */
export interface StatementPool {
  query<R extends pg.QueryResultRow | unknown[] = pg.QueryResultRow>(config: pg.QueryConfig & { name: string; rowMode?: 'array' }): Promise<pg.QueryResult<R>>;
}

export class PreparedPool implements StatementPool {
  private readonly names = new WeakMap<pg.PoolClient, Map<string, true>>();

  constructor(
    readonly pool: pg.Pool,
    private readonly perConnection = MAX_PREPARED_PER_CONNECTION,
    /**
     * Behind a transaction pooler (DATABASE_POOL_MODE=transaction) a connection carries no session state: each
     * statement runs in `BEGIN; SET LOCAL statement_timeout = <ms>` ... `COMMIT` instead of a startup parameter.
     */
    private readonly transactionTimeoutMs: number | null = null,
  ) {}

  /**
   * One promise per statement, callbacks inside: the same shape as `pool.query`, on the hot path of every request.
   * Every statement here is a transaction of its own, so one that Postgres chose as a deadlock's victim (40P01, as
   * when triggers go on a table written to) or failed on serialization (40001) rolled back whole and runs once more.
   */
  query<R extends pg.QueryResultRow | unknown[] = pg.QueryResultRow>(config: pg.QueryConfig & { name: string; rowMode?: 'array' }): Promise<pg.QueryResult<R>> {
    return new Promise((resolve, reject) => this.run(config, true, (result) => resolve(result as unknown as pg.QueryResult<R>), reject));
  }

  private run(config: pg.QueryConfig & { name: string }, retry: boolean, resolve: (result: pg.QueryResult) => void, reject: (error: unknown) => void): void {
    this.pool.connect((connectError, client, release) => {
      if (connectError || !client) {
        reject(connectError);
        return;
      }
      this.admit(client, config.name);
      const done = (error: Error | undefined, result: pg.QueryResult) => {
        // An ordinary SQL error leaves the connection (and its prepared statements) fine: keep it.
        release(error && !isStatementError(error) ? error : undefined);
        if (!error) resolve(result);
        else if (retry && isRetryable(error)) this.run(config, false, resolve, reject);
        else reject(error);
      };
      if (this.transactionTimeoutMs === null) client.query(config as pg.QueryConfig, done);
      else this.inTransaction(client, config, done);
    });
  }

  /**
   * The statement in a transaction of its own with its timeout set for it alone: queued back to back on the one
   * client, so the pooler keeps the same server connection from BEGIN to COMMIT. A failed statement rolls it back.
   */
  private inTransaction(client: pg.PoolClient, config: pg.QueryConfig, done: (error: Error | undefined, result: pg.QueryResult) => void): void {
    client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.floor(this.transactionTimeoutMs!)}`, (beginError: Error | undefined) => {
      if (beginError) return done(beginError, undefined as unknown as pg.QueryResult);
      client.query(config, (error: Error | undefined, result: pg.QueryResult) => {
        client.query(error ? 'ROLLBACK' : 'COMMIT', (endError: Error | undefined) => done(error ?? endError, result));
      });
    });
  }

  /** Marks `name` as just used on this connection, making room first when it is new and the connection is full. */
  private admit(client: pg.PoolClient, name: string): void {
    let known = this.names.get(client);
    if (!known) this.names.set(client, (known = new Map()));
    if (known.delete(name)) {
      known.set(name, true);
      return;
    }
    if (known.size >= this.perConnection) {
      const oldest = known.keys().next().value!;
      known.delete(oldest);
      delete (client as unknown as { connection: DriverConnection }).connection.parsedStatements[oldest];
      // Queued ahead of this request's statement on the same connection: no extra wait. The protocol's Close, never
      // SQL DEALLOCATE, which a transaction pooler forwards without forgetting the name (pgbouncer#991).
      client.query(new CloseStatement(oldest) as unknown as pg.QueryConfig).catch(() => undefined);
    }
    known.set(name, true);
  }
}

const RETRYABLE = new Set(['40P01', '40001']);
const isRetryable = (error: unknown) => RETRYABLE.has((error as { code?: unknown } | null)?.code as string);

/** An error the server answered for one statement (the connection is fine), not a broken or lost connection. */
function isStatementError(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && code.length === 5 && !code.startsWith('08') && !code.startsWith('57P') && severity === 'ERROR';
}

/** The connection failed (refused, lost, timed out, the server shutting down), not one statement on it. */
export function isConnectionError(error: unknown): boolean {
  return !isStatementError(error);
}

/** What node-postgres hands a Submittable (the parts used here). */
interface ProtocolConnection {
  close(message: { type: 'S' | 'P'; name: string }): void;
  sync(): void;
}

/**
 * A prepared statement closed by the protocol's Close message (then Sync), as a node-postgres Submittable: the
 * server, or the pooler in front of it, forgets the name.
 */
export class CloseStatement {
  private settle: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  private error: unknown = null;
  private readonly promise: Promise<void>;

  constructor(readonly statementName: string) {
    this.promise = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: ProtocolConnection): void {
    connection.close({ type: 'S', name: this.statementName });
    connection.sync();
  }

  handleError(error: unknown): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle?.reject(this.error);
    else this.settle?.resolve();
  }

  // Nothing else comes back for a Close (CloseComplete is not passed on by the driver).
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  then<T>(onFulfilled?: () => T, onRejected?: (error: unknown) => T): Promise<T> {
    return this.promise.then(onFulfilled, onRejected);
  }

  catch<T>(onRejected: (error: unknown) => T): Promise<void | T> {
    return this.promise.catch(onRejected);
  }
}
