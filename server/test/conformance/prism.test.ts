import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../../../test-support/oidc.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test-support/smtp.js';
import type { WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { freePort, startHarness, uniqueEmail, type Harness } from '../harness.js';
import { emailSettings } from '../email/support.js';
import { providerConfig } from '../providers/support.js';
import { emailTraffic } from './emailTraffic.js';
import { filesTraffic } from './filesTraffic.js';
import { tusTraffic } from './tusTraffic.js';
import { mfaTraffic } from './mfaTraffic.js';
import { providerTraffic } from './providerTraffic.js';
import { webhookTarget } from './runs.js';
import { webhookTraffic } from './webhookTraffic.js';
import { createProject, type Project } from './fixture.js';
import { startPrismProxy, type PrismProxy } from './prism.js';
import { Traffic, type Document } from './traffic.js';

/**
 * The service held to its own document by an outside tool: Stoplight Prism, as a validating proxy, sits in front of
 * the service while this suite drives every operation of the owner's document through it (as anon, a member and the
 * owner, successes and documented refusals). Prism fails any request or response that does not match the document.
 * Not driven here (documented in docs/api.md): the event streams (Prism cannot pass a stream through). The redirect
 * flow's 302s (`/auth/oauth/*`) cannot pass through it either: its proxy follows every redirect itself (node-fetch's
 * default, with no option to turn it off), to the provider or to an app that is not there, so no 302 reaches its
 * caller. Those are sent to the service directly and checked against the same document here (`Traffic.redirect`);
 * their refusals, and every other provider answer, go through Prism. Likewise an upload of an image: Prism's proxy
 * reads a request body as text and forwards what it decoded (`Traffic.direct`); its downloads go through Prism.
 */

const EXCLUDED = /\.stream$/;

let h: Harness;
let smtp: SmtpCatcher;
let op: TestOidcProvider;
let receiver: WebhookReceiver;
let project: Project;
let prism: PrismProxy;
let document: Document;
let t: Traffic;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const PASSWORD = 'correct horse';
const METRICS_TOKEN = 'prism-run-metrics-token-0123456789';

beforeAll(async () => {
  // A real SMTP server and sign-in by email: the email routes' successes need mails.
  smtp = await startSmtpCatcher();
  // A real OpenID Connect provider as `test` and `other`, and `down`, whose discovery never succeeds (503).
  const email = emailSettings({ smtpUrl: smtp.url, auth: { emailSignIn: true } });
  op = await startOidcProvider({ basaltCallbacks: ['test', 'other'].map((name) => `${email.publicUrl}/auth/oauth/${name}/callback`) });
  const providers = [providerConfig(op), providerConfig(op, 'other'), providerConfig(op, 'down', { issuer: `http://127.0.0.1:${await freePort()}` })];
  // A webhook receiver on loopback (issue 29), which the service may reach.
  const target = await webhookTarget();
  receiver = target.receiver;
  h = await startHarness({ metricsToken: METRICS_TOKEN, email, providers, ...target.options });
  project = await createProject(h);
  document = (await (await fetch(`${h.url}/openapi.json`, { headers: bearer(project.owner.accessToken) })).json()) as Document;
  prism = await startPrismProxy(document, h.url);
  t = new Traffic(prism.url, document, h.url);
}, 120_000);

afterAll(async () => {
  await prism?.stop();
  await h?.close();
  await op?.close();
  await smtp?.close();
  await receiver?.close();
});

describe('through the Prism validating proxy', () => {
  it('the account routes', async () => {
    await t.call('GET', '/auth/settings', { status: 200 });
    const email = uniqueEmail('prism');
    const signup = await t.call('POST', '/auth/signup', { body: { email, password: PASSWORD }, status: 201 });
    await t.call('POST', '/auth/signup', { body: { email, password: PASSWORD }, status: 409 });
    await t.call('POST', '/auth/signin', { body: { email, password: 'wrong password' }, status: 401 });
    const second = await t.call('POST', '/auth/signin', { body: { email, password: PASSWORD }, status: 200 });
    const refreshed = await t.call('POST', '/auth/refresh', { body: { refreshToken: second.body.data.refreshToken }, status: 200 });
    await t.call('POST', '/auth/refresh', { body: { refreshToken: second.body.data.refreshToken }, status: 401 });
    const me = bearer(signup.body.data.accessToken);
    await t.call('GET', '/auth/me', { headers: me, status: 200 });
    await t.call('GET', '/auth/me', { headers: bearer('not-a-token'), status: 401 });
    const sessions = await t.call('GET', '/auth/sessions', { headers: me, status: 200 });
    const other = (sessions.body.data as { id: string; current: boolean }[]).find((session) => !session.current)!;
    await t.call('DELETE', `/auth/sessions/${other.id}`, { headers: me, status: 200 });
    await t.call('DELETE', '/auth/sessions/nonexistent', { headers: me, status: 404 });
    expect(refreshed.body.data.accessToken).toBeTruthy();

    const key = await t.call('POST', '/auth/keys', { headers: me, body: { name: 'ci', access: 'read', expiresAt: Date.now() + 3_600_000 }, status: 201 });
    await t.call('GET', '/auth/keys', { headers: me, status: 200 });
    await t.call('DELETE', `/auth/keys/${key.body.data.id}`, { headers: me, status: 200 });
    await t.call('DELETE', `/auth/keys/${key.body.data.id}`, { headers: me, status: 404 });

    await t.call('POST', '/auth/password', { headers: me, body: { currentPassword: 'wrong password', newPassword: 'another long one' }, status: 400 });
    const changed = await t.call('POST', '/auth/password', { headers: me, body: { currentPassword: PASSWORD, newPassword: 'another long one' }, status: 200 });
    const now = bearer(changed.body.data.accessToken);
    await t.call('POST', '/auth/signout', { headers: now, status: 200 });
    await t.call('DELETE', '/auth/me', { headers: now, body: { password: 'wrong password' }, status: 400 });
    await t.call('DELETE', '/auth/me', { headers: now, body: { password: 'another long one' }, status: 200 });
  });

  it('the owner\'s tools', async () => {
    const owner = bearer(project.owner.accessToken);
    await t.call('GET', '/admin/settings', { headers: owner, status: 200 });
    await t.call('GET', '/admin/settings', { headers: bearer(project.member.accessToken), status: 403 });
    await t.call('GET', '/admin/types', { headers: owner, status: 200 });
    await t.call('GET', '/admin/overview', { headers: owner, status: 200 });
    await t.call('GET', '/admin/users?limit=5&offset=0', { headers: owner, status: 200 });

    const user = (await t.call('POST', '/auth/signup', { body: { email: uniqueEmail('prism'), password: PASSWORD }, status: 201 })).body.data.user;
    const link = await t.call('POST', `/admin/users/${user.id}/reset-link`, { headers: owner, status: 201 });
    await t.call('POST', '/auth/reset', { body: { token: link.body.data.token, newPassword: 'a brand new one' }, status: 200 });
    await t.call('POST', '/auth/reset', { body: { token: link.body.data.token, newPassword: 'a brand new one' }, status: 400 });
    await t.call('POST', `/admin/users/${user.id}/signout`, { headers: owner, status: 200 });
    await t.call('DELETE', `/admin/users/${user.id}`, { headers: owner, status: 200 });
    await t.call('DELETE', `/admin/users/${user.id}`, { headers: owner, status: 404 });

    await t.call('GET', '/admin/tables', { headers: owner, status: 200 });
    await t.call('GET', '/admin/tables/posts', { headers: owner, status: 200 });
    await t.call('GET', '/admin/tables/nothere', { headers: owner, status: 404 });
    const scratch = { name: 'scratch', columns: [{ name: 'label', type: 'text', nullable: false, default: 'x' }, { name: 'n', type: 'integer', unique: true }] };
    await t.call('POST', '/admin/tables', { headers: owner, body: scratch, status: 201 });
    await t.call('POST', '/admin/tables', { headers: owner, body: scratch, status: 409 });
    await t.call('PATCH', '/admin/tables/scratch', { headers: owner, body: { policy: 'public-read' }, status: 200 });
    await t.call('POST', '/admin/tables/scratch/columns', { headers: owner, body: { name: 'extra', type: 'json' }, status: 201 });
    await t.call('PATCH', '/admin/tables/scratch/columns/extra', { headers: owner, body: { readOnly: true }, status: 200 });
    const indexed = await t.call('POST', '/admin/tables/scratch/indexes', { headers: owner, body: { columns: ['label'], kind: 'search' }, status: 201 });
    const index = (indexed.body.data.indexes as { name: string; kind: string }[]).find((candidate) => candidate.kind === 'search')!;
    await t.call('DELETE', `/admin/tables/scratch/indexes/${index.name}`, { headers: owner, status: 200 });
    await t.call('DELETE', '/admin/tables/scratch/columns/extra', { headers: owner, status: 200 });
    await t.call('DELETE', '/admin/tables/scratch', { headers: owner, status: 200 });
  });

  it('the record routes of every table, as each caller may use them', async () => {
    const owner = bearer(project.owner.accessToken);
    const member = bearer(project.member.accessToken);
    const anon = { apikey: project.anonKey };

    const author = (await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Ada', bio: 'b', born: '1815-12-10T00:00:00.000Z', rating: 4.5, active: true, meta: { tags: ['x'] } }, status: 201 })).body.data;
    const secret0 = (await t.call('POST', '/api/secrets', { headers: owner, body: { label: 's0' }, status: 201 })).body.data;
    await t.call('POST', '/api/authors', { headers: member, body: { name: 'Not allowed' }, status: 403 });
    await t.call('GET', '/api/authors?rating[gte]=4&name[ilike]=*ad*&order=born.desc&select=id,name,posts(title)&posts.limit=5', { headers: member, status: 200 });
    await t.call('GET', '/api/authors?select=id,posts(title)', { headers: anon, status: 403 });
    await t.call('GET', `/api/authors/${author.id}?select=*,posts(*)`, { headers: owner, status: 200 });
    await t.call('GET', `/api/authors/${author.id}`, { headers: anon, status: 200 });
    await t.call('PUT', `/api/authors/${author.id}`, { headers: owner, body: { bio: 'changed', born: 1_000_000 }, status: 200 });

    const posts = await t.call('POST', '/api/posts', { headers: member, body: [{ title: 'one', author_id: author.id, views: 3 }, { title: 'two', published: true }], status: 201 });
    const post = posts.body.data[0];
    await t.call('POST', '/api/posts', { headers: member, body: { title: 'bad author', author_id: 'nobody' }, status: 400 });
    const page = await t.call('GET', '/api/posts?limit=1&order=createdAt.asc&count=estimated&select=id,title,author(name),comments(text)&comments.order=createdAt.desc', { headers: member, status: 200 });
    await t.call('GET', `/api/posts?limit=1&order=createdAt.asc&count=estimated&select=id,title,author(name),comments(text)&comments.order=createdAt.desc&after=${encodeURIComponent(page.body.next)}`, { headers: member, status: 200 });
    await t.call('GET', '/api/posts?views[in]=1,3&published=false&count=none', { headers: member, status: 200 });
    await t.call('GET', '/api/posts?views[gte]=abc', { headers: member, status: 400 });
    await t.call('GET', '/api/posts', { headers: anon, status: 403 });
    await t.call('GET', `/api/posts/${post.id}?select=title,author(*)`, { headers: member, status: 200 });
    await t.call('GET', `/api/posts/${post.id}`, { headers: owner, status: 404 });
    await t.call('PUT', `/api/posts/${post.id}`, { headers: member, body: { views: 4 }, status: 200 });
    await t.call('PUT', '/api/posts/made-by-put', { headers: member, body: { title: 'created' }, status: 201 });

    const comment = (await t.call('POST', '/api/comments', { headers: member, body: { post_id: post.id, text: 'first' }, status: 201 })).body.data;
    await t.call('GET', `/api/comments?post_id=${post.id}&select=text,post(title)`, { headers: member, status: 200 });
    await t.call('GET', `/api/comments/${comment.id}`, { headers: member, status: 200 });
    await t.call('PUT', `/api/comments/${comment.id}`, { headers: member, body: { text: 'edited' }, status: 200 });
    // Part 2 of the query language (issue 30): PATCH, changes by filter, upsert on a unique column, aggregates.
    await t.call('PATCH', `/api/comments/${comment.id}`, { headers: member, body: { text: 'patched' }, status: 200 });
    await t.call('PATCH', `/api/posts/${post.id}?select=id,views`, { headers: member, body: { views: 5 }, status: 200 });
    await t.call('PATCH', `/api/comments?text=patched&select=id,text`, { headers: member, body: { text: 'by filter' }, status: 200 });
    await t.call('PATCH', '/api/posts?all=true&dryRun=true', { headers: member, body: {}, status: 200 });
    await t.call('DELETE', '/api/comments?text=nothing-matches', { headers: member, status: 200 });
    await t.call('DELETE', '/api/posts?title=nothing-matches&select=id', { headers: member, status: 200 });
    await t.call('PATCH', '/api/comments?all=true&limit=1000', { headers: member, body: {}, status: 200 });
    await t.call('GET', '/api/posts?select=published,count(),total:sum(views)&order=count.desc', { headers: member, status: 200 });
    for (const [table, body] of [['authors', { name: 'A' }], ['secrets', { label: 'x' }], ['legacy', { note: 'x' }]] as const) {
      await t.call('PATCH', `/api/${table}?id=0&limit=1`, { headers: owner, body, status: 200 });
      await t.call('DELETE', `/api/${table}?id=0`, { headers: owner, status: 200 });
    }
    await t.call('PATCH', `/api/authors/${author.id}`, { headers: owner, body: { bio: 'patched' }, status: 200 });
    await t.call('PATCH', `/api/secrets/${secret0.id}`, { headers: owner, body: { value: 1 }, status: 200 });
    await t.call('DELETE', `/api/comments/${comment.id}`, { headers: member, status: 200 });
    await t.call('DELETE', `/api/posts/${post.id}`, { headers: member, status: 200 });
    await t.call('DELETE', `/api/authors/${author.id}`, { headers: owner, status: 200 });

    await t.call('DELETE', `/api/secrets/${secret0.id}`, { headers: owner, status: 200 });
    const secret = (await t.call('POST', '/api/secrets', { headers: owner, body: { label: 'k', value: 7 }, status: 201 })).body.data;
    await t.call('GET', '/api/secrets', { headers: member, status: 403 });
    await t.call('GET', '/api/secrets?value[lt]=10&label[is]=notnull', { headers: owner, status: 200 });
    await t.call('GET', `/api/secrets/${secret.id}`, { headers: owner, status: 200 });
    await t.call('PUT', `/api/secrets/${secret.id}`, { headers: owner, body: { value: null }, status: 200 });
    await t.call('DELETE', `/api/secrets/${secret.id}`, { headers: owner, status: 200 });

    const legacy = (await t.call('POST', '/api/legacy', { headers: owner, body: { code: 'AB12', amount: 123456789012, day: '2026-11-23' }, status: 201 })).body.data;
    await t.call('PATCH', `/api/legacy/${legacy.id}`, { headers: owner, body: { note: 'patched' }, status: 200 });
    await t.call('PUT', `/api/legacy/${legacy.id}`, { headers: owner, body: { id: legacy.id + 1 }, status: 400 });
    await t.call('GET', '/api/legacy?day[gte]=2026-01-01&amount[gt]=0', { headers: owner, status: 200 });
    await t.call('GET', `/api/legacy/${legacy.id}`, { headers: owner, status: 200 });
    await t.call('GET', '/api/legacy/not-a-number', { headers: owner, status: 404 });
    await t.call('PUT', '/api/legacy/100000', { headers: owner, body: { note: 'made by put' }, status: 201 });
    await t.call('PUT', `/api/legacy/${legacy.id}`, { headers: owner, body: { note: 'edited' }, status: 200 });
    await t.call('DELETE', `/api/legacy/${legacy.id}`, { headers: owner, status: 200 });
  });

  it('the owner\'s record tools on every table', async () => {
    const owner = bearer(project.owner.accessToken);
    const author = (await t.call('POST', '/admin/tables/authors/records', { headers: owner, body: { name: 'Grace' }, status: 201 })).body.data;
    const bodies: Record<string, Record<string, unknown>> = {
      authors: { name: 'Edsger' },
      posts: { title: 'by the owner', user_id: project.member.id, author_id: author.id },
      secrets: { label: 'admin' },
      legacy: { code: 'Z9' },
    };
    const post = (await t.call('POST', '/admin/tables/posts/records', { headers: owner, body: bodies.posts, status: 201 })).body.data;
    bodies.comments = { text: 'from the owner', post_id: post.id, user_id: project.member.id };
    for (const [table, body] of Object.entries(bodies)) {
      const created = (await t.call('POST', `/admin/tables/${table}/records`, { headers: owner, body: [body], status: 201 })).body.data[0];
      await t.call('GET', `/admin/tables/${table}/records?limit=2&order=id.desc&count=exact`, { headers: owner, status: 200 });
      await t.call('GET', `/admin/tables/${table}/records/${created.id}`, { headers: owner, status: 200 });
      await t.call('PUT', `/admin/tables/${table}/records/${created.id}`, { headers: owner, body: {}, status: 200 });
      await t.call('PATCH', `/admin/tables/${table}/records/${created.id}`, { headers: owner, body: {}, status: 200 });
      await t.call('PATCH', `/admin/tables/${table}/records?id=${created.id}`, { headers: owner, body: {}, status: 200 });
      await t.call('DELETE', `/admin/tables/${table}/records?id=${created.id}&dryRun=true`, { headers: owner, status: 200 });
      await t.call('DELETE', `/admin/tables/${table}/records/${created.id}`, { headers: owner, status: 200 });
    }
    await t.call('DELETE', `/admin/tables/authors/records/${author.id}`, { headers: owner, status: 200 });
  });

  it('values at the document\'s edges: what it admits the service takes, what it refuses Prism stops', async () => {
    const owner = bearer(project.owner.accessToken);
    const member = bearer(project.member.accessToken);
    // A password is 8 to 72 bytes: four two-byte characters are enough, 72 are too many.
    await t.call('POST', '/auth/signup', { body: { email: uniqueEmail('prism'), password: '¢¢¢¢' }, status: 201 });
    await t.refusedByDocument('POST', '/auth/signup', { body: { email: uniqueEmail('prism'), password: 'é'.repeat(72) } });
    await t.refusedByDocument('POST', '/auth/signup', { body: { email: '0@com', password: PASSWORD } });
    const edge = (await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Edge', born: '9999-12-31T23:59:59.999Z', meta: { deep: [null, 'ok'] } }, status: 201 })).body.data;
    const first = (await t.call('POST', '/api/authors', { headers: owner, body: { name: 'Edge', born: -62167219200000 }, status: 201 })).body.data;
    await t.refusedByDocument('POST', '/api/authors', { headers: owner, body: { name: 'Edge', born: '2023-02-30' } });
    await t.refusedByDocument('POST', '/api/authors', { headers: owner, body: { name: 'Edge', meta: { key: 'a\u0000' } } });
    await t.call('GET', '/api/authors?limit=9007199254740991&offset=9007199254740991&order=born.desc,name.asc', { headers: owner, status: 200 });
    await t.refusedByDocument('GET', '/api/authors?limit=9007199254740992', { headers: owner });
    await t.refusedByDocument('GET', '/api/authors?order=nope.asc', { headers: owner });
    // The owner column of an owner-scoped create takes any value, and is the caller's whatever it says.
    const mine = (await t.call('POST', '/api/posts', { headers: member, body: { title: 'mine', user_id: 42 }, status: 201 })).body.data;
    expect(mine.user_id).toBe(project.member.id);
    await t.refusedByDocument('GET', '/admin/tables/users', { headers: owner });
    await t.call('DELETE', `/api/posts/${mine.id}`, { headers: member, status: 200 });
    for (const author of [edge, first]) await t.call('DELETE', `/api/authors/${author.id}`, { headers: owner, status: 200 });
  });

  it('the email routes', async () => {
    await emailTraffic({ t, h, smtp, owner: bearer(project.owner.accessToken), member: bearer(project.member.accessToken) });
  }, 60_000);

  it('the second factor', async () => {
    await mfaTraffic({ t, smtp, owner: bearer(project.owner.accessToken), member: bearer(project.member.accessToken) });
  }, 60_000);

  it('identity providers', async () => {
    const publicUrl = h.services.email.settings.publicUrl;
    await providerTraffic({ t, op, publicUrl, owner: bearer(project.owner.accessToken), member: { headers: bearer(project.member.accessToken), email: project.member.email } });
    // Only the redirect flow's operations were checked outside Prism.
    expect([...t.checkedHere].sort()).toEqual(['auth.providerCallback', 'auth.providerCallbackForm', 'auth.providerStart']);
  }, 60_000);

  it('files', async () => {
    const owner = bearer(project.owner.accessToken);
    const callers = { t, owner, member: bearer(project.member.accessToken), anon: { apikey: project.anonKey } };
    await filesTraffic({ ...callers, upstream: h.url });
    await tusTraffic(callers);
    // Only an image's upload (Prism's proxy forwards a body as the text it decoded) and a 412 (the document requires
    // the version Prism would hold it to) went to the service directly.
    expect([...t.checkedHere].filter((operation) => operation.startsWith('files.'))).toEqual(['files.photos.upload', 'files.docs.uploadCreate']);
  }, 60_000);

  it('webhooks', async () => {
    await webhookTraffic({ t, h, receiver, owner: bearer(project.owner.accessToken), member: bearer(project.member.accessToken), anon: bearer(project.anonKey) });
  }, 90_000);

  it('the operations routes', async () => {
    await t.call('GET', '/health', { status: 200 });
    await t.call('GET', '/ready', { status: 200 });
    await t.call('GET', '/openapi.json', { headers: { apikey: project.anonKey }, status: 200 });
    await t.call('GET', '/openapi.json', { headers: { apikey: 'not the anon key' }, status: 401 });
    await t.call('GET', '/metrics', { headers: bearer(METRICS_TOKEN), status: 200 });
    await t.call('GET', '/metrics', { headers: bearer(project.owner.accessToken), status: 401 });
  });

  it('used every operation of the document (streams excepted) with a success', () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    // A success is a 2xx, or the redirect flow's 302.
    const missed = operations.filter((id) => !EXCLUDED.test(id) && ![...(t.seen.get(id) ?? [])].some((status) => status < 300 || status === 302));
    expect(missed).toEqual([]);
    expect(prism.output()).not.toMatch(/VIOLATIONS/);
  });
});
