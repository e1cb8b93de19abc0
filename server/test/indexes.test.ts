import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/** Indexes through the admin API: listed (psql-made too), built concurrently, dropped, and used by the planner. */

let h: Harness;
let owner: Account;
let member: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  member = await signUp(h);
  await createTable(h, owner, {
    name: 'posts',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'slug', type: 'text', unique: true },
      { name: 'score', type: 'integer' },
      { name: 'user_id', type: 'text' },
    ],
  });
});
afterAll(() => h.close());

const admin = () => h.request();
const indexesOf = async () => (await admin().get('/admin/tables/posts').set(owner.auth)).body.data.indexes as Array<{ name: string; columns: string[]; unique: boolean; kind: string }>;

describe('indexes', () => {
  it('lists the indexes a table was created with', async () => {
    const indexes = await indexesOf();
    expect(indexes).toEqual(
      expect.arrayContaining([
        { name: 'posts_pkey', columns: ['id'], unique: true, kind: 'btree' },
        { name: 'posts_slug_unique', columns: ['slug'], unique: true, kind: 'btree' },
        { name: 'posts_user_id_id_index', columns: ['user_id', 'id'], unique: false, kind: 'btree' },
      ]),
    );
    expect((await admin().get('/admin/tables').set(owner.auth)).body.data[0].indexes).toEqual(indexes);
  });

  it('creates btree and search indexes and answers with the table', async () => {
    const btree = await admin().post('/admin/tables/posts/indexes').set(owner.auth).send({ columns: ['score', 'title'] });
    expect(btree.status).toBe(201);
    expect(btree.body.data.indexes).toContainEqual({ name: 'posts_score_title_idx', columns: ['score', 'title'], unique: false, kind: 'btree' });
    const search = await admin().post('/admin/tables/posts/indexes').set(owner.auth).send({ columns: ['title'], kind: 'search' });
    expect(search.status).toBe(201);
    expect(search.body.data.indexes).toContainEqual({ name: 'posts_title_search', columns: ['title'], unique: false, kind: 'search' });
    const again = await admin().post('/admin/tables/posts/indexes').set(owner.auth).send({ columns: ['title'], kind: 'search' });
    expect(again.status).toBe(409);
  });

  it('lets the planner use a search index for the search operator', async () => {
    await h.services.knex.raw(`INSERT INTO posts (id, title) SELECT 'p' || n, 'word' || n FROM generate_series(1, 2000) n`);
    await h.services.knex.raw('ANALYZE posts');
    const plan = await h.services.knex.raw(`EXPLAIN SELECT 1 FROM posts WHERE to_tsvector('simple', "title") @@ websearch_to_tsquery('simple', 'word7')`);
    expect(JSON.stringify(plan.rows)).toContain('posts_title_search');
    const found = await h.request().get('/admin/tables/posts/records?title[search]=word7').set(owner.auth);
    expect(found.body.data.map((row: { id: string }) => row.id)).toEqual(['p7']);
  });

  it('recognises indexes made with psql, "other" for kinds the API does not make', async () => {
    await h.services.knex.raw(`CREATE INDEX posts_lower_title ON posts (lower(title))`);
    await h.services.knex.raw(`CREATE INDEX "Posts Score Partial" ON posts (score) WHERE score > 0`);
    const indexes = await indexesOf();
    expect(indexes).toContainEqual({ name: 'posts_lower_title', columns: [], unique: false, kind: 'other' });
    expect(indexes).toContainEqual({ name: 'Posts Score Partial', columns: ['score'], unique: false, kind: 'other' });
  });

  it('drops an index, but not the primary key or a unique constraint', async () => {
    const dropped = await admin().delete('/admin/tables/posts/indexes/posts_score_title_idx').set(owner.auth);
    expect(dropped.status).toBe(200);
    expect(dropped.body.data.indexes.map((index: { name: string }) => index.name)).not.toContain('posts_score_title_idx');
    expect(errorOf(await admin().delete('/admin/tables/posts/indexes/posts_pkey').set(owner.auth)).details).toEqual({ parameter: 'index' });
    expect((await admin().delete('/admin/tables/posts/indexes/posts_slug_unique').set(owner.auth)).status).toBe(400);
    expect((await admin().delete('/admin/tables/posts/indexes/nope').set(owner.auth)).status).toBe(404);
    expect((await admin().delete('/admin/tables/posts/indexes/Posts%20Score%20Partial').set(owner.auth)).status).toBe(200);
  });

  it.each([
    [{}, 'columns'],
    [{ columns: [] }, 'columns'],
    [{ columns: ['nope'] }, 'columns'],
    [{ columns: ['title', 'title'] }, 'columns'],
    [{ columns: ['score'], kind: 'search' }, 'columns'],
    [{ columns: ['title', 'slug'], kind: 'search' }, 'columns'],
    [{ columns: ['title'], kind: 'hash' }, 'kind'],
    [{ columns: ['title'], unique: true }, 'unique'],
    [{ columns: ['title"; DROP TABLE posts; --'] }, 'columns'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await admin().post('/admin/tables/posts/indexes').set(owner.auth).send(body);
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field });
  });

  it('is the owner’s alone', async () => {
    expect((await admin().post('/admin/tables/posts/indexes').set(member.auth).send({ columns: ['title'] })).status).toBe(403);
    expect((await admin().delete('/admin/tables/posts/indexes/posts_user_id_id_index').set(member.auth)).status).toBe(403);
  });

  it('leaves no invalid index behind when a build fails, and says why with a 400', async () => {
    await createTable(h, owner, { name: 'blobs', columns: [{ name: 'body', type: 'text' }] });
    // A value too large for a btree entry (incompressible, ~16 kB) makes the concurrent build fail half-way.
    await h.services.knex.raw(`INSERT INTO blobs (id, body) SELECT 'huge', string_agg(md5(random()::text), '') FROM generate_series(1, 500)`);
    const response = await admin().post('/admin/tables/blobs/indexes').set(owner.auth).send({ columns: ['body'] });
    expect(response.status).toBe(400);
    expect(errorOf(response).details).toEqual({ field: 'columns' });
    const invalid = await h.services.knex.raw(`SELECT count(*)::int AS n FROM pg_index WHERE NOT indisvalid AND indrelid = 'blobs'::regclass`);
    expect(invalid.rows[0].n).toBe(0);
    const indexes = (await admin().get('/admin/tables/blobs').set(owner.auth)).body.data.indexes as Array<{ name: string }>;
    expect(indexes.map((index) => index.name)).toEqual(['blobs_pkey']);
  });
});
