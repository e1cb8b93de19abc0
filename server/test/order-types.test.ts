import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderableTypesSql } from '../src/db/orderable.js';
import { errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * `order` on columns of every kind of type a table made with psql may have: a column Postgres cannot sort by (json,
 * xml, geometric types, an array, domain or composite built on one) is 400 naming `order` (or `<embed>.order`), never
 * a 500; every other column sorts and pages. Which types sort is the database's own answer, read from its catalog.
 */

let h: Harness;
let owner: Account;
/** A connection of its own, as psql. */
let sql: pg.Client;

/** Columns Postgres cannot order by, and columns it can, of the table `shapes`. */
const UNORDERED = ['doc', 'markup', 'at', 'area', 'docs', 'wrapped', 'pair_doc', 'path_expr'];
const ORDERED = ['tags', 'mood', 'span', 'scores', 'positive', 'pair_int', 'code', 'net', 'words', 'price', 'wait', 'ref', 'bytes'];

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h);
  sql = await h.sql();
  await sql.query(`
    CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
    CREATE DOMAIN json_doc AS json;
    CREATE DOMAIN positive AS int CHECK (VALUE > 0);
    CREATE TYPE pair_doc AS (n int, doc json);
    CREATE TYPE pair_int AS (n int, label text);
    CREATE TABLE shapes (
      id serial PRIMARY KEY,
      doc json, markup xml, at point, area polygon, docs json[], wrapped json_doc, pair_doc pair_doc, path_expr jsonpath,
      tags jsonb, mood mood, span int4range, scores int[], positive positive, pair_int pair_int, code varchar(10),
      net cidr, words tsvector, price money, wait interval, ref uuid, bytes bytea
    );
    CREATE TABLE marks (id serial PRIMARY KEY, shape_id int REFERENCES shapes (id), doc json, at point, label text);
    INSERT INTO shapes (doc, markup, at, tags, mood, span, scores, positive, pair_int, code, net, words, price, wait, ref, bytes) VALUES
      ('{"a":1}', '<a/>', '(1,2)', '{"a":1}', 'happy', '[1,5)', '{1,2}', 2, '(1,"x")', 'b', '10.0.0.0/8', 'big cat', 2, '2 hours', '00000000-0000-0000-0000-000000000002', '\\x02'),
      ('{"a":2}', '<b/>', '(3,4)', '{"a":0}', 'sad', '[0,3)', '{1}', 1, '(2,"y")', 'a', '192.168.0.0/16', 'red dog', 1, '1 hour', '00000000-0000-0000-0000-000000000001', '\\x01'),
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    INSERT INTO marks (shape_id, doc, at, label) VALUES (1, '{}', '(0,0)', 'one'), (1, '[]', '(1,1)', 'two');
    NOTIFY basalt, 'reload schema';
  `);
  await h.services.cache.reload();
});
afterAll(() => h?.close());

const get = (path: string) => h.request().get(path).set(owner.auth);

describe('order on a column Postgres cannot sort by', () => {
  it.each(UNORDERED)('%s: 400 naming order, on /api and on the admin listing', async (column) => {
    for (const path of [`/api/shapes?order=${column}.asc`, `/api/shapes?order=id.desc,${column}.desc`, `/admin/tables/shapes/records?order=${column}.asc`]) {
      const response = await get(path);
      expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(400);
      const error = errorOf(response);
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { parameter: 'order' } });
      expect(error.message).toContain(column);
    }
  });

  it("an embed's order: 400 naming <embed>.order", async () => {
    for (const column of ['doc', 'at']) {
      const response = await get(`/api/shapes?select=id,marks(label)&marks.order=${column}.asc`);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'VALIDATION_ERROR', details: { parameter: 'marks.order' } });
    }
    const ordered = await get('/api/shapes?select=id,marks(label)&marks.order=label.desc&order=id.asc&limit=1');
    expect(ordered.body.data).toEqual([{ id: 1, marks: [{ label: 'two' }, { label: 'one' }] }]);
  });

  it('the OpenAPI document leaves out exactly these columns', async () => {
    const document = (await get('/openapi.json')).body as { paths: Record<string, { get: { parameters: Array<{ $ref?: string; name?: string; schema?: { pattern: string } }> } }> };
    const order = document.paths['/api/shapes']!.get.parameters.find((parameter) => parameter.name === 'order')!;
    const pattern = new RegExp(order.schema!.pattern);
    for (const column of UNORDERED) expect(pattern.test(`${column}.asc`), column).toBe(false);
    for (const column of [...ORDERED, 'id']) expect(pattern.test(`${column}.asc`), column).toBe(true);
  });
});

describe('order on every other column', () => {
  it.each(ORDERED)('%s: sorts (NULLs last ascending) and pages by cursor', async (column) => {
    const all = await get(`/api/shapes?order=${column}.asc`);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const ids = (all.body.data as Array<{ id: number }>).map((row) => row.id);
    const expected = (await sql.query<{ id: number }>(`SELECT id FROM shapes ORDER BY "${column}" ASC NULLS LAST, id ASC`)).rows.map((row) => row.id);
    expect(ids).toEqual(expected);
    expect(ids.at(-1)).toBe(3);
    const paged: number[] = [];
    let next: string | null = null;
    do {
      const page = await get(`/api/shapes?order=${column}.asc&limit=1${next ? `&after=${encodeURIComponent(next)}` : ''}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      paged.push(...(page.body.data as Array<{ id: number }>).map((row) => row.id));
      next = page.body.next as string | null;
    } while (next);
    expect(paged).toEqual(ids);
  });
});

describe('which types sort: the catalog query agrees with Postgres on every type it has', () => {
  it('for each type, orderable exactly when ORDER BY a value of it is accepted', async () => {
    const roots = `SELECT oid FROM pg_type WHERE typtype <> 'p' AND typisdefined`;
    const { rows } = await sql.query<{ name: string; orderable: boolean }>(`${orderableTypesSql(roots)} SELECT type::regtype::text AS name, orderable FROM orderable_types`);
    expect(rows.length).toBeGreaterThan(200);
    const disagreements: string[] = [];
    for (const { name, orderable } of rows) {
      let sorts = true;
      try {
        // The parser decides: an ORDER BY on a type without an ordering is refused before anything runs.
        await sql.query(`SELECT x FROM (SELECT NULL::${name} AS x) t ORDER BY x`);
      } catch (error) {
        if ((error as { code?: string }).code !== '42883') throw error;
        sorts = false;
      }
      if (sorts !== orderable) disagreements.push(`${name}: catalog says ${orderable}, ORDER BY says ${sorts}`);
    }
    expect(disagreements).toEqual([]);
    expect(rows.filter((row) => !row.orderable).map((row) => row.name)).toEqual(expect.arrayContaining(['json', 'xml', 'point', 'json[]', 'json_doc', 'pair_doc', 'jsonpath']));
  });
});
