import knexFactory, { type Knex } from 'knex';
import { pgTypes } from './pgTypes.js';

export interface DatabaseOptions {
  poolSize?: number;
}

export function createKnex(url: string, options: DatabaseOptions = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      // The same shapes as the record pool (numbers for int8, ISO strings for timestamps), set per connection.
      types: pgTypes as Knex.PgConnectionConfig['types'],
      // Fail fast when the server is away instead of letting requests pile up.
      connectionTimeoutMillis: 5_000,
    },
    pool: { min: 0, max: options.poolSize ?? 10, acquireTimeoutMillis: 10_000 },
    acquireConnectionTimeout: 10_000,
  });
}
