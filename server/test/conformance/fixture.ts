import pg from 'pg';
import { createTable, signUp, type Account, type Harness } from '../harness.js';

/**
 * One project for the description's tests, the Prism run and the fuzz run: a table of each policy, every column type,
 * relations both ways, and a table made with psql (serial id, varchar, int8, date), so the document covers what a
 * real project holds.
 */
export interface Project {
  owner: Account;
  member: Account;
  anonKey: string;
}

export const TABLES = ['authors', 'posts', 'comments', 'secrets', 'legacy'] as const;
/** Columns that reference rows (of authors, posts, and users for owner columns): a value must name one that exists. */
export const REFERENCES = ['author_id', 'post_id', 'user_id'];

export async function createProject(h: Harness): Promise<Project> {
  const owner = await signUp(h);
  const member = await signUp(h);
  await createTable(h, owner, {
    name: 'authors',
    policy: 'public-read',
    columns: [
      { name: 'name', type: 'text', nullable: false },
      { name: 'bio', type: 'text' },
      { name: 'born', type: 'timestamp' },
      { name: 'rating', type: 'real' },
      { name: 'active', type: 'boolean', default: true },
      { name: 'meta', type: 'json' },
    ],
  });
  await createTable(h, owner, {
    name: 'posts',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'title', type: 'text', nullable: false },
      { name: 'body', type: 'text' },
      { name: 'views', type: 'integer', default: 0 },
      { name: 'published', type: 'boolean', default: false },
      { name: 'author_id', type: 'text', references: { table: 'authors', onDelete: 'set-null' } },
    ],
  });
  await createTable(h, owner, {
    name: 'comments',
    columns: [
      { name: 'user_id', type: 'text' },
      { name: 'post_id', type: 'text', nullable: false, references: { table: 'posts', onDelete: 'cascade' } },
      { name: 'text', type: 'text', nullable: false },
    ],
  });
  await createTable(h, owner, { name: 'secrets', policy: 'private', columns: [{ name: 'label', type: 'text' }, { name: 'value', type: 'integer' }] });
  const client = new pg.Client({ connectionString: h.database.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE legacy (id serial PRIMARY KEY, code varchar(8), amount int8, day date, note text NOT NULL DEFAULT \'\')');
    await client.query("NOTIFY basalt, 'reload schema'");
  } finally {
    await client.end();
  }
  await h.services.cache.reload();
  return { owner, member, anonKey: h.services.tokens.anonKey };
}
