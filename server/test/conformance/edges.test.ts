import type { ValidateFunction } from 'ajv';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, uniqueEmail, type Harness } from '../harness.js';
import { createProject, type Project } from './fixture.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * The document's edges, case by case (issue 22, item 10): every value the service refuses at an edge is refused by
 * the schema the document gives it (ajv, as the rest of the suite validates), and every value the document admits at
 * an edge is taken by the service. A rule changed on one side only fails here.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let h: Harness;
let project: Project;
let document: Json;
let schemas: DocumentSchemas;
let owner: Record<string, string>;
let member: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  project = await createProject(h);
  // Columns of types Postgres cannot order by, as a table made with psql may have them.
  const client = new pg.Client({ connectionString: h.database.url });
  await client.connect();
  try {
    await client.query("CREATE TABLE shapes (id serial PRIMARY KEY, doc json, at point, tags jsonb)");
    await client.query("NOTIFY basalt, 'reload schema'");
  } finally {
    await client.end();
  }
  await h.services.cache.reload();
  owner = project.owner.auth;
  member = project.member.auth;
  document = (await h.request().get('/openapi.json').set(owner)).body as Json;
  schemas = new DocumentSchemas(document);
}, 60_000);
afterAll(async () => h?.close());

/** The schema of a parameter of an operation (following `$ref`s into `components.parameters`). */
function parameter(path: string, method: string, name: string): ValidateFunction {
  for (const entry of document.paths[path][method].parameters as Json[]) {
    const resolved = entry.$ref ? document.components.parameters[(entry.$ref as string).split('/').pop()!] : entry;
    if (resolved.name === name) return schemas.of(resolved.schema);
  }
  throw new Error(`${method} ${path} has no parameter ${name}`);
}

/** The schema of a property of a component schema. */
const property = (schema: string, name: string): ValidateFunction => schemas.of(document.components.schemas[schema].properties[name]);

/** Both directions of one case (holds.ts), against this document. */
const holds = <T>(edge: Case<T>): Promise<void> => holdsIn(schemas, edge);

const query = (path: string, pairs: Record<string, string>) => `${path}?${Object.entries(pairs).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`;
const list = (path: string, pairs: Record<string, string>, headers = owner) => h.request().get(query(path, pairs)).set(headers);
const createAuthor = (fields: Record<string, unknown>) => h.request().post('/api/authors').set(owner).send({ name: 'edge', ...fields });

describe('the document admits what the service takes, and refuses what it refuses', () => {
  it('passwords: 8 to 72 bytes of UTF-8, counted in characters by no schema', async () => {
    // Sign-up, reset and password change take one password schema.
    expect(document.paths['/auth/reset'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ResetPassword' });
    for (const shape of document.components.schemas.ResetPassword.oneOf) expect(shape.properties.newPassword).toEqual(document.components.schemas.Credentials.properties.password);
    await holds({
      schema: () => property('Credentials', 'password'),
      send: (password: string) => h.request().post('/auth/signup').send({ email: uniqueEmail('edge'), password }),
      named: 'password',
      refused: ['é'.repeat(72), 'a'.repeat(73), '¢¢¢', 'seven77', 'eight\u0000ch'],
      admitted: ['¢¢¢¢', 'a'.repeat(72), 'é'.repeat(36), '€'.repeat(24), '😀'.repeat(18), 'pässwörd'],
    });
  });

  it('emails: a domain of two labels, a local part of at most 64', async () => {
    await holds({
      schema: () => property('Credentials', 'email'),
      send: (email: string) => h.request().post('/auth/signup').send({ email, password: 'long enough' }),
      named: 'email',
      refused: ['0@com', 'a@localhost', 'a@1.2', 'a..b@x.test', 'a@-x.test', `${'l'.repeat(65)}@x.test`, 'a\u0000@x.test'],
      admitted: [`Edge.Case+${Date.now()}@Sub.Example.TEST`, `${String(Date.now()).padStart(64, 'l')}@x.test`],
    });
    // Answers carry what sign-up stored, internationalised addresses too: no `format: email` refuses them.
    const signup = await h.request().post('/auth/signup').send({ email: `ü${Date.now()}@x.test`, password: 'long enough' });
    expect(signup.status).toBe(201);
    const answer = schemas.at(['paths', '/auth/signup', 'post', 'responses', '201', 'content', 'application/json', 'schema']);
    expect(answer(signup.body), schemas.errors(answer)).toBe(true);
  });

  it('timestamps in bodies: real days of the years 0000-9999, ISO 8601 or epoch milliseconds', async () => {
    await holds({
      schema: () => schemas.of({ $ref: '#/components/schemas/Timestamp' }),
      send: (born: unknown) => createAuthor({ born }),
      named: 'born',
      refused: ['2023-02-30', '2023-02-29', '1900-02-29', '10000-01-01', '2023-01-01T24:00', '2023-01-01T10:00+01', '0000-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', 'infinity', '', 253402300800000, -62167219200001, '253402300800000', '-62167219200001'],
      admitted: ['0000-02-29', '0000-01-01', '9999-12-31T23:59:59.999Z', '2024-02-29 23:59:59.123456789+0100', '0000-01-01T00:00-05:00', 253402300799999, -62167219200000, '253402300799999', '-0'],
    });
  });

  it('timestamps, integers and decimals in filters and in lists: never the empty string', async () => {
    const filter = (path: string, name: string, headers = owner) => ({ schema: () => parameter(path, 'get', name), send: (value: string) => list(path, { [name]: value }, headers), named: name });
    await holds({ ...filter('/api/authors', 'born[gte]'), refused: ['2023-02-30', '253402300800000', '', '1e3'], admitted: ['2023-02-28', '253402300799999', '0000-02-29T00:00Z'] });
    for (const op of ['in', 'nin']) {
      await holds({ ...filter('/api/authors', `born[${op}]`), refused: ['', ',', '2023-01-01,', '"2023-01-01', '2023-02-30'], admitted: ['2023-01-01', '"2023-01-01",253402300799999', '2023-01-01T10:00+01:00,0'] });
      await holds({ ...filter('/api/posts', `views[${op}]`, member), refused: ['', '1,,2', '2147483648', '"1', '1.5'], admitted: ['1', '"1",-0', '-2147483648,2147483647', Array(100).fill('7').join(',')] });
      await holds({ ...filter('/api/authors', `rating[${op}]`), refused: ['', '1e309', ','], admitted: ['1.5,-2,1e3', '".5"'] });
      await holds({ ...filter('/api/legacy', `code[${op}]`), refused: ['123456789', 'a,"unterminated'], admitted: ['', 'a,,b', '"a,b","say ""hi"""'] });
    }
    await holds({ ...filter('/api/posts', 'views', member), refused: ['2147483648', '-2147483649', '0x10'], admitted: ['2147483647', '-2147483648', '0002147483647'] });
    await holds({ ...filter('/api/legacy', 'amount[gt]'), refused: ['9223372036854775808'], admitted: ['9223372036854775807', '-9223372036854775808'] });
    await holds({ ...filter('/api/authors', 'rating[gt]'), refused: ['1e309', 'Infinity', ''], admitted: ['1e299', '-.5'] });
    await holds({ ...filter('/api/legacy', 'code'), refused: ['123456789', 'a\u0000'], admitted: ['12345678'] });
  });

  it('limit and offset: whole numbers up to 2^53 - 1', async () => {
    for (const [path, name] of [['/api/authors', 'limit'], ['/api/authors', 'offset'], ['/admin/users', 'limit'], ['/admin/users', 'offset']] as const) {
      await holds({
        schema: () => parameter(path, 'get', name),
        send: (value: string) => list(path, { [name]: value }),
        named: name,
        refused: ['9007199254740992', '99999999999999999999', '-1', '1.5', ''],
        admitted: ['9007199254740991', '000000000000000000000000001', '0'],
      });
    }
    await holds({
      schema: () => parameter('/api/authors', 'get', 'posts.limit'),
      send: (value: string) => list('/api/authors', { select: 'id,posts(id)', 'posts.limit': value }),
      named: 'posts.limit',
      refused: ['101', '-1'],
      admitted: ['100', '0', '0100'],
    });
  });

  it('json columns: any JSON without a NUL character in a string or a key', async () => {
    await holds({
      schema: () => property('table.authors.api.insert', 'meta'),
      send: (meta: unknown) => createAuthor({ meta }),
      named: 'meta',
      refused: ['a\u0000', { 'k\u0000': 1 }, ['\u0000'], { a: { b: [{ c: 'x\u0000y' }] } }],
      admitted: [{ a: [1, 'x', null, { b: true }] }, null, 'text', 0, []],
    });
  });

  it('the owner column of an owner-scoped create: any value, ignored', async () => {
    const validate = schemas.of({ $ref: '#/components/schemas/table.posts.api.insert' });
    for (const user_id of ['someone else', 12345, { x: 1 }, null]) {
      const body = { title: 'mine', user_id };
      expect(validate(body), schemas.errors(validate)).toBe(true);
      const response = await h.request().post('/api/posts').set(member).send(body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.data.user_id).toBe(project.member.id);
    }
  });

  it('order: the table\'s own columns, each .asc or .desc', async () => {
    await holds({
      schema: () => parameter('/api/posts', 'get', 'order'),
      send: (order: string) => list('/api/posts', { order }, member),
      named: 'order',
      refused: ['nope.asc', 'title', 'title.up', 'title.asc,', 'id.asc,nope.desc', 'name.asc'],
      admitted: ['title.asc,views.desc', 'user_id.desc,id.asc', 'createdAt.desc'],
    });
    await holds({
      schema: () => parameter('/api/posts', 'get', 'comments.order'),
      send: (order: string) => list('/api/posts', { select: 'id,comments(text)', 'comments.order': order }, member),
      named: 'comments.order',
      refused: ['title.asc', 'text'],
      admitted: ['text.asc,post_id.desc'],
    });
    // Postgres has no ordering for json or point: the document leaves them out and the service refuses them (jsonb it
    // orders).
    await holds({
      schema: () => parameter('/api/shapes', 'get', 'order'),
      send: (order: string) => list('/api/shapes', { order }),
      named: 'order',
      refused: ['doc.asc', 'at.desc', 'id.asc,doc.asc'],
      admitted: ['tags.asc', 'id.desc'],
    });
  });

  it('admin names: any table but the reserved ones, any column but the managed ones', async () => {
    await holds({
      schema: () => parameter('/admin/tables/{name}', 'get', 'name'),
      send: (name: string) => h.request().get(`/admin/tables/${encodeURIComponent(name)}`).set(owner),
      named: 'name',
      refused: ['users', 'sessions', '_policies', 'pg_class'],
      admitted: ['posts', 'legacy', 'nothere', 'Users'],
      alsoFine: [404],
    });
    await holds({
      schema: () => parameter('/admin/tables/{name}/columns/{column}', 'delete', 'column'),
      send: (column: string) => h.request().delete(`/admin/tables/secrets/columns/${encodeURIComponent(column)}`).set(owner),
      named: 'column',
      refused: ['id', 'createdAt', 'updatedAt'],
      admitted: ['nothere'],
      alsoFine: [404],
    });
  });

  it('API keys: a name of 1 to 100 characters once trimmed, an expiry read as timestamps are', async () => {
    const key = (body: Record<string, unknown>) => h.request().post('/auth/keys').set(member).send({ name: 'edge', access: 'read', ...body });
    await holds({
      schema: () => property('CreateApiKey', 'name'),
      send: (name: string) => key({ name }),
      named: 'name',
      refused: ['', ' \u00a0\n', 'x'.repeat(101), ` ${'x'.repeat(101)} `, 'a\u0000'],
      admitted: [' ci', 'ci ', 'c i', 'x'.repeat(100), `\t${'x'.repeat(100)}\u3000`],
    });
    await holds({
      schema: () => property('CreateApiKey', 'expiresAt'),
      send: (expiresAt: unknown) => key({ expiresAt }),
      named: 'expiresAt',
      refused: ['soon', '', '2999-02-30', '2999-12-31T24:00', '10000-01-01', true],
      admitted: ['2999-12-31T23:59:59.999Z', '2999-12-31 23:59', '2999-12-31', '4102444800000', 4102444800000, null],
    });
  });
});
