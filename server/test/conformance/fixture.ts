import pg from 'pg';
import { createTable, signUp, type Account, type Harness } from '../harness.js';

/**
 * One project for the description's tests, the Prism run and the fuzz run: a table of each policy, every column type,
 * relations both ways, a table made with psql (serial id, varchar, int8, date), and two buckets (issue 28), so the
 * document covers what a real project holds.
 */
export interface Project {
  owner: Account;
  member: Account;
  anonKey: string;
}

export const TABLES = ['authors', 'posts', 'comments', 'secrets', 'legacy'] as const;
/**
 * Buckets: `photos` is public-read (the owner uploads images and text, up to 64 KiB; anyone reads), `docs` is
 * owner-scoped (each member uploads and reads their own), with metadata of every type a query parameter carries.
 */
export const BUCKETS = ['photos', 'docs'] as const;
export const PHOTOS_MAX_BYTES = 64 * 1024;
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
  await createTable(h, owner, {
    name: 'photos',
    kind: 'files',
    policy: 'public-read',
    maxFileSize: PHOTOS_MAX_BYTES,
    allowedTypes: ['image/*', 'text/plain'],
    columns: [
      { name: 'caption', type: 'text' },
      { name: 'rank', type: 'integer' },
    ],
  });
  await createTable(h, owner, {
    name: 'docs',
    kind: 'files',
    columns: [
      { name: 'label', type: 'text' },
      { name: 'tags', type: 'json' },
      { name: 'pinned', type: 'boolean', default: false },
      { name: 'due', type: 'timestamp' },
      { name: 'weight', type: 'real' },
    ],
  });
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
