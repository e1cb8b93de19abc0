import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// pg returns int8 (count(*)) and numeric as strings; the API promises JSON numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));
// A timestamp without time zone is read as UTC, not as the server's local time; `date` stays an ISO date string.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (value) => {
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? value : date;
});
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export interface DatabaseOptions {
  poolSize?: number;
}

export function createKnex(url: string, options: DatabaseOptions = {}): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      // Fail fast when the server is away instead of letting requests pile up.
      connectionTimeoutMillis: 5_000,
    },
    pool: { min: 0, max: options.poolSize ?? 10, acquireTimeoutMillis: 10_000 },
    acquireConnectionTimeout: 10_000,
  });
}
