import pg from 'pg';
import { pgTypes } from './pgTypes.js';

/**
 * A pool of plain pg clients for record statements (the primary's record pool, webhooks' own, each standby's): the
 * API's type parsers, a connection timeout, and the statement timeout as a startup parameter, except behind a
 * transaction pooler, which refuses startup parameters (there the timeout is set in each statement's transaction:
 * db/preparedPool.ts). A slow filter on a big table is then cancelled alone (504) rather than holding a
 * connection without end.
 */
export function createRecordPool(
  url: string,
  options: { max: number; connectionTimeoutMs: number; statementTimeoutMs: number; transactionPooled: boolean },
): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    types: pgTypes,
    ...(options.transactionPooled ? {} : { statement_timeout: options.statementTimeoutMs }),
  });
}
