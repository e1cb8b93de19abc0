import { validate } from '@readme/openapi-parser';
import { DocumentSchemas } from './conformance/validator.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startHarness, type Harness } from './harness.js';
import { createProject, type Project } from './conformance/fixture.js';

type Parameter = { name: string } | { $ref: string };
type Document = { openapi: string; paths: Record<string, Record<string, { security?: unknown[]; parameters?: Parameter[]; requestBody?: unknown }>>; components: { schemas: Record<string, Record<string, unknown>>; parameters: Record<string, { name: string }> } };

let h: Harness;
let project: Project;

async function documentFor(headers: Record<string, string>): Promise<Document> {
  const response = await h.request().get('/openapi.json').set(headers);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return response.body as Document;
}

async function keyOf(access: 'read' | 'read-write'): Promise<string> {
  const response = await h.request().post('/auth/keys').set(project.member.auth).send({ name: `doc ${access}`, access });
  expect(response.status).toBe(201);
  return response.body.data.key as string;
}

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

beforeAll(async () => {
  h = await startHarness();
  project = await createProject(h);
});
afterAll(async () => h?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document for anon, a member, the owner and API keys', async () => {
    const callers = {
      anon: { apikey: project.anonKey },
      member: project.member.auth,
      owner: project.owner.auth,
      readKey: { Authorization: `Bearer ${await keyOf('read')}` },
      writeKey: { Authorization: `Bearer ${await keyOf('read-write')}` },
    };
    for (const [who, headers] of Object.entries(callers)) {
      const document = await documentFor(headers);
      expect(document.openapi, who).toBe('3.1.0');
      const result = await validate(structuredClone(document) as never);
      expect(result.valid, `${who}: ${JSON.stringify('errors' in result ? result.errors.slice(0, 3) : [])}`).toBe(true);
      // The parser checks the document's structure; every schema in it must also be valid JSON Schema 2020-12.
      const schemas = new DocumentSchemas(document);
      for (const name of Object.keys(document.components.schemas)) expect(() => schemas.at(['components', 'schemas', name]), `${who}: ${name}`).not.toThrow();
    }
  });

  it('describes what each caller may use, and nothing else', async () => {
    const anon = operations(await documentFor({ apikey: project.anonKey }));
    expect(anon).toEqual(expect.arrayContaining(['GET /api/authors', 'GET /api/authors/{id}', 'GET /realtime/authors', 'POST /auth/signin', 'GET /health', 'GET /ready']));
    for (const hidden of ['POST /api/authors', 'GET /api/posts', 'GET /api/secrets', 'GET /auth/me', 'GET /admin/tables', 'GET /metrics']) expect(anon).not.toContain(hidden);

    const member = operations(await documentFor(project.member.auth));
    expect(member).toEqual(expect.arrayContaining(['GET /api/posts', 'POST /api/posts', 'PUT /api/posts/{id}', 'DELETE /api/comments/{id}', 'GET /api/authors', 'GET /auth/me', 'POST /auth/keys']));
    for (const hidden of ['POST /api/authors', 'GET /api/secrets', 'GET /api/legacy', 'GET /admin/tables', 'GET /admin/tables/posts/records']) expect(member).not.toContain(hidden);

    const owner = operations(await documentFor(project.owner.auth));
    expect(owner).toEqual(
      expect.arrayContaining(['POST /api/authors', 'GET /api/secrets', 'GET /api/legacy', 'GET /admin/tables', 'POST /admin/tables/{name}/indexes', 'GET /admin/tables/secrets/records', 'PUT /admin/tables/legacy/records/{id}', 'GET /admin/overview']),
    );

    // A key acts on /api only: /auth routes that need a caller and /admin are not its to use.
    const readKey = operations(await documentFor({ Authorization: `Bearer ${await keyOf('read')}` }));
    expect(readKey).toContain('GET /api/posts');
    for (const hidden of ['POST /api/posts', 'GET /auth/me', 'POST /auth/keys', 'GET /admin/tables']) expect(readKey).not.toContain(hidden);
  });

  it('lists every filter operator a column type takes, and bodies that refuse unknown keys', async () => {
    const document = await documentFor(project.member.auth);
    const names = document.paths['/api/posts']!.get!.parameters!.map((parameter) =>
      '$ref' in parameter ? document.components.parameters[parameter.$ref.split('/').pop()!]!.name : parameter.name,
    );
    expect(names).toEqual(expect.arrayContaining(['limit', 'offset', 'order', 'after', 'count', 'select', 'title', 'title[ilike]', 'title[search]', 'views[gte]', 'views[in]', 'published[is]', 'comments.order', 'comments.limit']));
    expect(names).not.toContain('published[gt]');
    // Value rules are shared schemas, in the document once: every int4 list refers to one, as every timestamp filter.
    const parameterOf = (name: string) => Object.values(document.components.parameters).find((parameter) => parameter.name === name) as { schema: unknown } | undefined;
    expect(parameterOf('views[in]')?.schema).toEqual({ $ref: '#/components/schemas/IntegerList.int4' });
    expect(parameterOf('createdAt[gte]')?.schema).toEqual({ $ref: '#/components/schemas/TimestampText' });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['IntegerText.int4', 'IntegerList.int4', 'TimestampText', 'TimestampList']));
    const insert = document.components.schemas['table.posts.api.insert']!;
    expect(insert.additionalProperties).toBe(false);
    expect(insert.required).toEqual(['title']);
    expect(Object.keys(insert.properties as object)).not.toContain('createdAt');
    const record = document.components.schemas['table.posts']!;
    expect(Object.keys(record.properties as object)).toEqual(expect.arrayContaining(['id', 'title', 'views', 'author', 'comments']));
    // The psql table: a serial id is filled by the database, int8 and date are described as such.
    const owner = await documentFor(project.owner.auth);
    const legacy = owner.components.schemas['table.legacy.api.insert']!;
    expect(legacy.required ?? []).toEqual([]);
    expect((owner.components.schemas['table.legacy']!.properties as Record<string, unknown>).code).toMatchObject({ anyOf: [{ type: 'string', maxLength: 8 }, { type: 'null' }] });
  });

  it('describes the email routes (issue 26) to those who may call them, and not the confirm page', async () => {
    const publicEmail = ['POST /auth/verify/send', 'POST /auth/verify', 'POST /auth/recover', 'POST /auth/reset', 'POST /auth/otp', 'POST /auth/otp/verify', 'POST /auth/otp/code', 'POST /auth/oauth/exchange', 'POST /auth/email/confirm'];
    const ownerEmail = ['GET /admin/outbox', 'POST /admin/outbox/{id}/retry', 'POST /admin/users/invite', 'POST /admin/users/{id}/resend', 'POST /admin/email/test'];
    const anon = operations(await documentFor({ apikey: project.anonKey }));
    expect(anon).toEqual(expect.arrayContaining(publicEmail));
    for (const hidden of ['POST /auth/email', ...ownerEmail]) expect(anon).not.toContain(hidden);
    const member = operations(await documentFor(project.member.auth));
    expect(member).toEqual(expect.arrayContaining([...publicEmail, 'POST /auth/email']));
    for (const hidden of ownerEmail) expect(member).not.toContain(hidden);
    const document = await documentFor(project.owner.auth);
    expect(operations(document)).toEqual(expect.arrayContaining([...publicEmail, 'POST /auth/email', ...ownerEmail]));
    // An HTML page of the console, as /console is: not in the document.
    expect(Object.keys(document.paths).filter((path) => path === '/auth/confirm' || path.startsWith('/console'))).toEqual([]);

    const { schemas } = document.components;
    expect(schemas.Profile!.required).toEqual(['id', 'email', 'role', 'createdAt', 'verified', 'hasPassword', 'locale', 'mfa', 'identities']);
    expect(schemas.AdminUser!.required).toEqual(expect.arrayContaining(['verified', 'hasPassword', 'locale', 'identities', 'mfa']));
    const users = document.paths['/admin/users']!.get as unknown as { responses: Record<string, { content: Record<string, { schema: { properties: { data: { items: unknown } } } }> }> };
    expect(users.responses['200']!.content['application/json']!.schema.properties.data.items).toEqual({ $ref: '#/components/schemas/AdminUser' });
    // Sending endpoints may answer 429; sign-in by email 404 when it is off; invites 409; sign-in 403 (unverified).
    const statuses = (path: string, method = 'post') => Object.keys((document.paths[path]![method] as { responses: object }).responses);
    for (const path of ['/auth/verify/send', '/auth/recover', '/auth/otp', '/auth/email']) expect(statuses(path), path).toContain('429');
    for (const path of ['/auth/otp', '/auth/otp/verify', '/auth/otp/code', '/admin/outbox/{id}/retry', '/admin/users/{id}/resend']) expect(statuses(path), path).toContain('404');
    expect(statuses('/admin/users/invite')).toEqual(expect.arrayContaining(['201', '409']));
    expect(statuses('/auth/signin')).toContain('403');
    expect(statuses('/auth/email')).toContain('401');
  });

  it('describes the second factor (issue 27): its routes to those who may call them, the sign-in step, step-up', async () => {
    const userMfa = ['POST /auth/mfa/totp', 'DELETE /auth/mfa/totp', 'POST /auth/mfa/totp/verify', 'POST /auth/mfa/recovery-codes'];
    const anon = operations(await documentFor({ apikey: project.anonKey }));
    expect(anon).toContain('POST /auth/mfa/challenge');
    for (const hidden of [...userMfa, 'DELETE /admin/users/{id}/mfa']) expect(anon).not.toContain(hidden);
    const member = operations(await documentFor(project.member.auth));
    expect(member).toEqual(expect.arrayContaining(['POST /auth/mfa/challenge', ...userMfa]));
    expect(member).not.toContain('DELETE /admin/users/{id}/mfa');
    const document = await documentFor(project.owner.auth);
    expect(operations(document)).toEqual(expect.arrayContaining(['POST /auth/mfa/challenge', ...userMfa, 'DELETE /admin/users/{id}/mfa']));

    type Responses = Record<string, { content?: Record<string, { schema: { properties: { data: unknown } } }> }>;
    const responsesOf = (path: string, method = 'post') => (document.paths[path]![method] as { responses: Responses }).responses;
    // The three ways in answer the tokens or the step; the challenge answers the tokens.
    for (const path of ['/auth/signin', '/auth/otp/verify', '/auth/oauth/exchange']) {
      expect(responsesOf(path)['200']!.content!['application/json']!.schema.properties.data, path).toEqual({ $ref: '#/components/schemas/SignInResult' });
    }
    expect(document.components.schemas.SignInResult!.oneOf).toEqual([{ $ref: '#/components/schemas/AuthResult' }, { $ref: '#/components/schemas/MfaStep' }]);
    expect(responsesOf('/auth/mfa/challenge')['200']!.content!['application/json']!.schema.properties.data).toEqual({ $ref: '#/components/schemas/AuthResult' });
    // Step-up: 403 (MFA_REQUIRED) where it applies; 409 on enrolment with a factor on; 429 on the challenge.
    const statuses = (path: string, method = 'post') => Object.keys(responsesOf(path, method));
    for (const [path, method] of [['/auth/keys', 'post'], ['/auth/password', 'post'], ['/auth/email', 'post'], ['/auth/me', 'delete'], ['/auth/mfa/totp', 'delete'], ['/auth/mfa/recovery-codes', 'post']] as const) {
      expect(statuses(path, method), `${method} ${path}`).toContain('403');
      expect((document.paths[path]![method] as { description: string }).description, `${method} ${path}`).toContain('MFA_REQUIRED');
    }
    expect(statuses('/auth/mfa/totp')).toEqual(expect.arrayContaining(['200', '401', '409']));
    expect(statuses('/auth/mfa/challenge')).toEqual(expect.arrayContaining(['200', '400', '429']));
    expect(statuses('/admin/users/{id}/mfa', 'delete')).toEqual(expect.arrayContaining(['200', '403', '404']));
    expect((document.components.schemas.Error!.properties as { error: { properties: { code: { enum: string[] } } } }).error.properties.code.enum).toContain('MFA_REQUIRED');
  });

  it('describes the files routes (issue 28) as each caller may use them, and a bucket\'s records without a create', async () => {
    const bytes = (path: string) => [`GET ${path}`, `HEAD ${path}`];
    const uploads = (table: string) => [`OPTIONS /files/${table}/uploads`, `POST /files/${table}/uploads`, `HEAD /files/${table}/uploads/{upload}`, `PATCH /files/${table}/uploads/{upload}`, `DELETE /files/${table}/uploads/{upload}`];
    const writes = (table: string) => [`POST /files/${table}`, `PUT /files/${table}/{id}`, ...uploads(table)];
    const never = ['POST /api/photos', 'POST /api/docs'];
    const anon = operations(await documentFor({ apikey: project.anonKey }));
    expect(anon).toEqual(expect.arrayContaining([...bytes('/files/photos/{id}'), 'POST /files/photos/{id}/sign', 'GET /api/photos']));
    for (const hidden of [...writes('photos'), ...bytes('/files/docs/{id}'), ...writes('docs'), ...never, 'GET /admin/tables/{name}/files/{id}']) expect(anon, hidden).not.toContain(hidden);

    const member = operations(await documentFor(project.member.auth));
    expect(member).toEqual(expect.arrayContaining([...bytes('/files/docs/{id}'), ...writes('docs'), 'POST /files/docs/{id}/sign', 'PUT /api/docs/{id}', 'DELETE /api/docs/{id}', ...bytes('/files/photos/{id}'), 'POST /files/photos/{id}/sign']));
    for (const hidden of [...writes('photos'), ...never, 'GET /admin/tables/{name}/files/{id}']) expect(member, hidden).not.toContain(hidden);

    // A read-only key reads; it uploads, replaces and signs nothing.
    const readKey = operations(await documentFor({ Authorization: `Bearer ${await keyOf('read')}` }));
    expect(readKey).toEqual(expect.arrayContaining([...bytes('/files/docs/{id}'), ...bytes('/files/photos/{id}')]));
    for (const hidden of [...writes('docs'), 'POST /files/docs/{id}/sign', 'POST /files/photos/{id}/sign']) expect(readKey, hidden).not.toContain(hidden);

    const document = await documentFor(project.owner.auth);
    const owner = operations(document);
    expect(owner).toEqual(expect.arrayContaining([...writes('photos'), ...writes('docs'), 'GET /admin/tables/{name}/files/{id}', 'PUT /admin/tables/docs/records/{id}']));
    for (const hidden of [...never, 'POST /admin/tables/docs/records', 'POST /admin/tables/photos/records']) expect(owner, hidden).not.toContain(hidden);

    // A bucket's bodies: no create; an update without the file columns (read-only on /api) or the uploader.
    const { schemas } = document.components;
    expect(Object.keys(schemas)).not.toContain('table.docs.api.insert');
    expect(Object.keys(schemas['table.docs.api.update']!.properties as object).sort()).toEqual(['due', 'id', 'label', 'pinned', 'tags', 'weight']);
    // The owner's tools set the name and the uploader, never what the bytes decide.
    expect(Object.keys(schemas['table.docs.admin.update']!.properties as object)).toEqual(expect.arrayContaining(['name', 'user_id']));
    for (const content of ['type', 'size', 'sha256']) expect(Object.keys(schemas['table.docs.admin.update']!.properties as object)).not.toContain(content);
    expect((schemas['table.docs']!.properties as Record<string, { readOnly?: boolean }>).sha256!.readOnly).toBe(true);
    type Operation = { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>; security: unknown[]; description?: string };
    const operation = (path: string, method: string) => document.paths[path]![method] as unknown as Operation;
    expect(Object.keys(operation('/api/docs/{id}', 'put').responses)).not.toContain('201');
    expect(operation('/api/docs/{id}', 'put').description).toContain('400 naming `body`');
    // Bytes outside the envelope: 200 and 206 with the file's headers, 304 and 416 without a body; no credentials for a signed link.
    const download = operation('/files/photos/{id}', 'get');
    expect(Object.keys(download.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '416', '400', '403', '404']));
    expect(Object.keys(download.responses['200']!.content!)).toEqual(['application/octet-stream', '*/*']);
    expect(Object.keys(download.responses['206']!.headers!)).toEqual(expect.arrayContaining(['ETag', 'Last-Modified', 'Cache-Control', 'Accept-Ranges', 'Content-Disposition', 'Content-Range']));
    expect(download.responses['304']!.content).toBeUndefined();
    expect(download.security).toContainEqual({});
    expect(Object.keys(operation('/files/docs', 'post').responses)).toEqual(expect.arrayContaining(['201', '400', '403', '413', '429']));
    // The owner's table descriptions: kind and a bucket's settings, and the create that makes one.
    expect(schemas.Table!.required).toContain('kind');
    expect(Object.keys(schemas.CreateTable!.properties as object)).toEqual(expect.arrayContaining(['kind', 'maxFileSize', 'allowedTypes']));

    // Under rules, as the rules fold: a bucket anyone reads and nobody writes is a download for anon, no upload for anybody.
    await h.request().patch('/admin/tables/photos').set(project.owner.auth).send({ policy: 'rules', rules: { read: 'true' } }).expect(200);
    const folded = operations(await documentFor(project.member.auth));
    expect(folded).toEqual(expect.arrayContaining(bytes('/files/photos/{id}')));
    for (const hidden of writes('photos')) expect(folded, hidden).not.toContain(hidden);
    await h.request().patch('/admin/tables/photos').set(project.owner.auth).send({ policy: 'public-read' }).expect(200);
  });

  it('describes the webhooks (issue 29) to the owner alone: bodies with their limits, answers, parameters and errors', async () => {
    const ownerWebhooks = [
      'GET /admin/webhooks', 'POST /admin/webhooks', 'GET /admin/webhooks/{id}', 'PATCH /admin/webhooks/{id}', 'DELETE /admin/webhooks/{id}', 'POST /admin/webhooks/{id}/secret',
      'GET /admin/webhooks/{id}/deliveries', 'POST /admin/webhooks/{id}/deliveries/{delivery}/retry', 'POST /admin/webhooks/{id}/replay',
    ];
    const document = await documentFor(project.owner.auth);
    expect(operations(document)).toEqual(expect.arrayContaining(ownerWebhooks));
    for (const headers of [{ apikey: project.anonKey }, project.member.auth, { Authorization: `Bearer ${await keyOf('read-write')}` }]) {
      const others = operations(await documentFor(headers));
      for (const hidden of ownerWebhooks) expect(others, hidden).not.toContain(hidden);
      expect(Object.keys((await documentFor(headers)).components.schemas).filter((name) => name.includes('Webhook'))).toEqual([]);
    }

    type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parts of the document
    const schemas = document.components.schemas as Record<string, Json>;
    const create = schemas.CreateWebhook!;
    expect([create.required, create.additionalProperties]).toEqual([['url', 'tables'], false]);
    expect(create.properties.tables.anyOf).toEqual([expect.objectContaining({ const: '*' }), expect.objectContaining({ type: 'array', minItems: 1, maxItems: 100, uniqueItems: true })]);
    expect(create.properties.events).toMatchObject({ items: { enum: ['insert', 'update', 'delete', 'truncate'] }, minItems: 1, uniqueItems: true });
    expect(create.properties.headers).toMatchObject({ maxProperties: 10, propertyNames: { pattern: expect.any(String) }, additionalProperties: { pattern: expect.any(String) } });
    expect(create.properties.enabled.type).toBe('boolean');
    // A filter goes with exactly one table.
    expect(create.then).toEqual({ properties: { tables: { type: 'array', maxItems: 1 } } });
    expect(schemas.UpdateWebhook).toMatchObject({ minProperties: 1, additionalProperties: false });
    expect(schemas.UpdateWebhook!.required).toBeUndefined();
    expect(schemas.WebhookWithSecret!.properties.secret.pattern).toBe('^whsec_[A-Za-z0-9+/]{43}=$');
    expect(schemas.Webhook!.properties.secret).toBeUndefined();
    expect(schemas.WebhookDelivery!.properties.payload).toEqual({ $ref: '#/components/schemas/WebhookPayload' });

    type Operation = { parameters?: Array<{ name: string; in: string; schema: { pattern?: string } }>; responses: Record<string, unknown>; requestBody?: { content: Record<string, { schema: unknown }> } };
    const operation = (path: string, method: string) => document.paths[path]![method] as unknown as Operation;
    const statuses = (path: string, method: string) => Object.keys(operation(path, method).responses).sort();
    expect(statuses('/admin/webhooks', 'post')).toEqual(['201', '400', '401', '403', '413', '503']);
    expect(statuses('/admin/webhooks', 'get')).toEqual(['200', '401', '403', '503']);
    for (const [path, method] of [['/admin/webhooks/{id}', 'get'], ['/admin/webhooks/{id}', 'delete'], ['/admin/webhooks/{id}/secret', 'post'], ['/admin/webhooks/{id}/deliveries', 'get'], ['/admin/webhooks/{id}/deliveries/{delivery}/retry', 'post']]) {
      expect(statuses(path!, method!), `${method} ${path}`).toEqual(['200', '400', '401', '403', '404', '503']);
    }
    for (const [path, method] of [['/admin/webhooks/{id}', 'patch'], ['/admin/webhooks/{id}/replay', 'post']]) expect(statuses(path!, method!), `${method} ${path}`).toEqual(['200', '400', '401', '403', '404', '413', '503']);
    expect(operation('/admin/webhooks/{id}/deliveries', 'get').parameters!.map((parameter) => `${parameter.in} ${parameter.name}`)).toEqual(['path id', 'query status', 'query limit', 'query before']);
    expect(operation('/admin/webhooks/{id}/deliveries/{delivery}/retry', 'post').parameters!.map((parameter) => parameter.schema.pattern)).toEqual(['^[A-Za-z0-9_-]{1,64}$', '^[A-Za-z0-9_-]{1,64}$']);
    expect(operation('/admin/webhooks/{id}', 'patch').requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/UpdateWebhook' });
    // Dropping what a webhook's filter reads is a 409 of dropTable and dropColumn.
    expect(statuses('/admin/tables/{name}', 'delete')).toContain('409');
    expect(statuses('/admin/tables/{name}/columns/{column}', 'delete')).toContain('409');
  });

  it('changes when the schema and the policies do', async () => {
    const before = operations(await documentFor({ apikey: project.anonKey }));
    expect(before).not.toContain('GET /api/secrets');
    await h.request().patch('/admin/tables/secrets').set(project.owner.auth).send({ policy: 'public-read' }).expect(200);
    await h.request().post('/admin/tables').set(project.owner.auth).send({ name: 'later', policy: 'public-read', columns: [{ name: 'x', type: 'integer' }] }).expect(201);
    const after = operations(await documentFor({ apikey: project.anonKey }));
    expect(after).toEqual(expect.arrayContaining(['GET /api/secrets', 'GET /api/later']));
    await h.request().patch('/admin/tables/secrets').set(project.owner.auth).send({ policy: 'private' }).expect(200);
    await h.request().delete('/admin/tables/later').set(project.owner.auth).expect(200);
    const again = operations(await documentFor({ apikey: project.anonKey }));
    expect(again).not.toContain('GET /api/secrets');
    expect(again).not.toContain('GET /api/later');
  });

  it('needs credentials as /api does', async () => {
    expect(errorOf(await h.request().get('/openapi.json')).code).toBe('UNAUTHORIZED');
    expect((await h.request().get('/openapi.json').set('Authorization', 'Bearer nonsense')).status).toBe(401);
    expect((await h.request().get('/openapi.json').set('apikey', 'bsk_nonsense')).status).toBe(401);
  });
});
