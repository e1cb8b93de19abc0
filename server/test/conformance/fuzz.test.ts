import fc from 'fast-check';
import { ERROR_STATUS } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { startHarness, type Harness } from '../harness.js';
import { emailSettings } from '../email/support.js';
import { createProject, REFERENCES, type Project } from './fixture.js';
import { RequestMaker, type FuzzOperation } from './requests.js';
import { webhookTarget } from './runs.js';
import { DocumentSchemas } from './validator.js';

/**
 * A bounded property-based fuzz run (fast-check) on its own database: requests made from each caller's own document
 * (json-schema-faker), valid or with one fault, as anon, a member and the owner. Every answer: never a 500, the
 * envelope, a status the document lists for the operation, and a body that matches the schema it gives that status.
 * A request without a fault fits the document (each drawn value is checked with ajv), so the service must not refuse
 * it (400) for anything the document could have said: only for what no schema can (see `undescribable`).
 * Not fuzzed (docs/api.md, "Conformance runs"): the event streams, and the calls that would change the project under
 * the run's document or pull it away (adding or dropping columns, making one read-only, dropping tables, policy
 * changes, deleting or signing out accounts, password changes); the Prism run covers those. No provider is configured
 * here: the provider routes answer 404 (or refuse their input), as the document says; the Prism run drives them.
 * Files (issue 28): uploads are sent without a body or with JSON text (the generator makes no bytes); a file's bytes and
 * the answers without a body (206, 304, 416, tus's 201, 200 and 204, any HEAD) are checked for their status alone.
 * Webhooks (issue 29): a webhook's `url` is always the run's receiver on loopback (a drawn host could resolve on the
 * internet and be sent the run's changes), its `tables` served ones and its `filter` one of the language (or none);
 * ids name a real webhook and delivery.
 */

const EXCLUDED = new Set(['admin.dropTable', 'admin.addColumn', 'admin.dropColumn', 'admin.setColumn', 'admin.setPolicy', 'admin.deleteUser', 'admin.signOutUser', 'auth.deleteMe', 'auth.signout', 'auth.password', 'ops.metrics']);
const RUNS = { anon: 150, member: 200, owner: 250 };
/** FUZZ_SEED replays or varies a run; FUZZ_SCALE multiplies its length (for a longer run by hand). */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

let h: Harness;
let project: Project;
let receiver: WebhookReceiver;
const known: Record<string, string[]> = {};
/** Body fields drawn from real values (requests.ts): a webhook's target, tables and filter. */
const fields: Record<string, unknown[]> = {};

beforeAll(async () => {
  // Sign-in by email on (else /auth/otp* only ever answers 404); no SMTP: mails stay in the outbox.
  const target = await webhookTarget();
  receiver = target.receiver;
  h = await startHarness({ email: emailSettings({ auth: { emailSignIn: true } }), ...target.options });
  project = await createProject(h);
  const owner = { authorization: `Bearer ${project.owner.accessToken}` };
  const member = { authorization: `Bearer ${project.member.accessToken}` };
  // A webhook on authors, so the first author's insert is a delivery to name.
  const webhook = await h.request().post('/admin/webhooks').set(owner).send({ url: receiver.url, tables: ['authors'] });
  const author = await h.request().post('/api/authors').set(owner).send({ name: 'Ada' });
  const post = await h.request().post('/api/posts').set(member).send({ title: 'first', author_id: author.body.data.id });
  const comment = await h.request().post('/api/comments').set(member).send({ post_id: post.body.data.id, text: 'hi' });
  const legacy = await h.request().post('/api/legacy').set(owner).send({ code: 'A1' });
  const photo = await h.request().post('/files/photos?name=photo.txt').set(owner).set('content-type', 'text/plain').send('a photo, in words');
  const doc = await h.request().post('/files/docs?name=doc.txt').set(member).set('content-type', 'text/plain').send('a document');
  const upload = await h.request().post('/files/docs/uploads').set(member).set('tus-resumable', '1.0.0').set('upload-length', '100');
  known.id = [author.body.data.id, post.body.data.id, comment.body.data.id, String(legacy.body.data.id), project.member.id, photo.body.data.id, doc.body.data.id, webhook.body.data.id];
  const [delivery] = await receiver.waitForDistinct(1);
  known.delivery = [delivery!.id];
  known['?before'] = [];
  fields.url = [receiver.url];
  fields.tables = [['authors'], ['posts', 'comments'], '*'];
  // A drawn filter is never of the rules language: these are (the second about authors alone).
  fields.filter = [null, "name = 'Ada'"];
  known.upload = [String(upload.headers.location).split('/').pop()!];
  known.name = ['authors', 'posts', 'comments', 'secrets', 'legacy', 'photos', 'docs'];
  known.column = ['bio', 'title', 'nope'];
  known['?select'] = ['*', 'id', 'id,createdAt'];
  known['?after'] = [];
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

function operationsOf(document: Json): FuzzOperation[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([, operation]) => !EXCLUDED.has(operation.operationId) && !/stream$/.test(operation.operationId))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Operations whose bodies name things of the project (columns, tables, types and defaults that must agree). */
const DEFINITIONS = new Set(['admin.createTable', 'admin.createIndex']);

/**
 * Refusals (400) that name what only the state of the project decides, by operation: the account's password (or, for
 * one without, a fresh code) of an email change; a mail that is not waiting to be retried; an account that has
 * nothing to be sent again; a webhook's target (where its host resolves), tables (served, captured) and filter (the
 * rules language, one table as the webhook ends up); a replay's `since` before the oldest change kept.
 */
const STATEFUL: Record<string, string[]> = {
  'auth.changeEmail': ['password'],
  'admin.retryMail': ['id'],
  'admin.resendMail': ['id'],
  'admin.createWebhook': ['url', 'tables', 'filter'],
  'admin.updateWebhook': ['url', 'tables', 'filter'],
  'admin.replayWebhook': ['since'],
};

/**
 * On /files, what the bytes or the stored file decide: a type the bucket does not take, transform parameters on a file
 * that is not an image, a signed link's two parameters (each or neither), a PATCH's Content-Type (the generator sends
 * no bytes), a json column's JSON text. A resumable upload's metadata is base64 inside a header: the keys it names are
 * not the document's to list.
 */
const FILE_STATEFUL = ['type', 'transform', 'width', 'height', 'fit', 'format', 'quality', 'expires', 'sig', 'content-type'];
const isFileOperation = (operationId: string) => operationId.startsWith('files.') || operationId === 'admin.file';
/** A json column's value as a query parameter: JSON text, which no pattern can tell (`contentMediaType`). */
const jsonText = (target: FuzzOperation, named: string) =>
  ((target.operation.parameters ?? []) as Json[]).some((parameter) => parameter.name === named && parameter.schema?.contentMediaType === 'application/json');

/**
 * Why the service may refuse (400) a request that fits the document: a rule between values, or about the data, that
 * no schema states. `select`'s grammar and names, a cursor, the query string's 8 KiB, an embed's options without the
 * embed in `select`; a PUT body's `id` (must equal the path's), a reference to a row that must exist, a column
 * required only when PUT creates; a reset token the owner made or a mail's token or code (live, unused), a one-time
 * code handed to an app, a `redirectTo` that `auth.redirectUrls` allows, a key expiry in the future; the second
 * factor's current code, a recovery code, a sign-in's live `mfaToken` (MFA_REQUIRED is a 403 every stepped-up
 * operation lists); `STATEFUL`; on /files, `FILE_STATEFUL`.
 */
function undescribable(document: Json, target: FuzzOperation, details: Json | undefined, url = ''): boolean {
  const named = (details?.parameter ?? details?.field) as string | undefined;
  const operationId = target.operation.operationId as string;
  if (named === undefined || DEFINITIONS.has(operationId)) return true;
  if (isFileOperation(operationId) && (FILE_STATEFUL.includes(named.toLowerCase()) || (operationId.endsWith('.uploadCreate') && details?.field !== undefined) || jsonText(target, named))) return true;
  if (['select', 'after', 'query', 'token', 'code', 'recoveryCode', 'mfaToken', 'redirectTo', 'expiresAt', ...REFERENCES].includes(named) || /\.(order|limit)$/.test(named)) return true;
  if (STATEFUL[target.operation.operationId]?.includes(named)) return true;
  // A change by filter needs a filter or all=true, and refuses more matching rows than `limit` (the data's to say);
  // an upsert's elements must not share a key nor differ in their columns (issue 30).
  if (/\.(updateWhere|deleteWhere)$/.test(operationId) && (named === 'filter' || named === 'limit')) return true;
  // An order by an aggregate's key needs that aggregate in `select`.
  if (named === 'order' && /[?&]order=[^&]*\b(count|sum|avg|min|max)\./.test(url)) return true;
  if (operationId.endsWith('.create') && (named === 'onConflict' || details?.index !== undefined)) return true;
  if (target.method === 'patch' && operationId.endsWith('.update') && named === 'id') return true;
  if (target.method !== 'put') return false;
  const update = target.operation.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
  const insert = update && document.components.schemas[update.split('/').pop()!.replace(/\.update$/, '.insert')];
  // A bucket's PUT on an id with no record would create one: 400 naming `body` (its records come from uploads).
  return named === 'id' || named === 'body' || Boolean(insert?.required?.includes(named));
}

/** The documented response of an operation for a status (resolving `$ref`s), and where its JSON schema sits (none: not JSON). */
function documented(document: Json, target: FuzzOperation, status: number): { segments: string[] } | null {
  const response = target.operation.responses[String(status)];
  if (!response) return null;
  if (response.$ref) return { segments: [...(response.$ref as string).slice(2).split('/'), 'content', 'application/json', 'schema'] };
  return response.content?.['application/json'] ? { segments: ['paths', target.path, target.method, 'responses', String(status), 'content', 'application/json', 'schema'] } : { segments: [] };
}

/** tus's statuses with no code of their own (API.md: its errors stay in the envelope): 410 `NOT_FOUND`, 412 `VALIDATION_ERROR`. */
const TUS_STATUSES = new Set([410, 412]);

async function fuzzAs(who: keyof typeof RUNS, headers: Record<string, string>): Promise<void> {
  const document = (await (await fetch(`${h.url}/openapi.json`, { headers })).json()) as Json;
  const schemas = new DocumentSchemas(document);
  const maker = new RequestMaker(document, schemas, known, fields);
  const statuses = new Map<number, number>();
  let unfit = 0;
  const operations = new Map(operationsOf(document).map((operation) => [operation.operation.operationId as string, operation]));
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...operations.keys()), fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 0, max: 9 }), async (operationId, seed, faultKind) => {
      const target = operations.get(operationId)!;
      const request = maker.make(target, seed, faultKind);
      const secured = (target.operation.security as object[] | undefined)?.length !== 0;
      const response = await fetch(`${h.url}${request.url}`, {
        method: request.method,
        headers: { ...(secured ? headers : {}), ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: request.body,
      });
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const where = `${who} ${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers)} ${request.body?.slice(0, 300) ?? ''} (${request.fault}) -> ${response.status} ${text.slice(0, 300)}`;
      expect(response.status, where).not.toBe(500);
      if (!request.fits) unfit++;
      const response_ = documented(document, target, response.status);
      expect(response_, `${where}: status not in the document`).not.toBeNull();
      // A file's bytes and the answers without a body: their status is all there is to check (a HEAD has no body).
      if (request.method === 'HEAD' || (isFileOperation(target.operation.operationId as string) && response.status < 400 && !response_!.segments.length)) {
        if (request.method === 'HEAD') expect(text, where).toBe('');
        return;
      }
      if (request.fault === 'none' && request.fits && response.status === 400) {
        const details = (JSON.parse(text) as Json).error?.details as Json | undefined;
        expect(undescribable(document, target, details, request.url), `${where}: the document admits this request`).toBe(true);
      }
      expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
      const body = JSON.parse(text) as Json;
      if (response.status >= 400) {
        expect(typeof body.error?.code === 'string' && typeof body.error?.message === 'string', where).toBe(true);
        const tusOwn = TUS_STATUSES.has(response.status) && /\.upload[A-Z]/.test(target.operation.operationId as string);
        expect(tusOwn || ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS] === response.status, `${where}: ${body.error.code} is not a ${response.status}`).toBe(true);
      } else if (target.operation.operationId !== 'ops.openapi') {
        expect(body, where).toHaveProperty('data');
      }
      if (response_!.segments.length) {
        const validate = schemas.at(response_!.segments);
        expect(validate(body), `${where}: ${schemas.errors(validate)}`).toBe(true);
      }
    }),
    { numRuns: Math.round(RUNS[who] * SCALE), seed: SEED, endOnFailure: true },
  );
  // A run that only ever hits refusals would prove little: a fair share of the requests must succeed.
  const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const successes = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
  console.log(`fuzz as ${who}: ${total} requests (${unfit} with a value the generator could not fit to the document), by status ${JSON.stringify(Object.fromEntries(statuses))}`);
  expect(successes / total, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(0.2);
}

describe('fuzzing from the document', () => {
  it('as anon', async () => fuzzAs('anon', { apikey: project.anonKey }), 120_000);
  it('as a member', async () => fuzzAs('member', { authorization: `Bearer ${project.member.accessToken}` }), 120_000);
  it('as the owner', async () => fuzzAs('owner', { authorization: `Bearer ${project.owner.accessToken}` }), 180_000);
});
