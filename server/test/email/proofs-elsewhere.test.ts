import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from '../harness.js';
import { emailSettings } from './support.js';

/**
 * What a proven address does beyond /auth: `@auth.verified` and `@auth.email` in access rules (from the access token,
 * and for API keys from their account), and Basalt's confirm page, which a GET never spends.
 */

let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness({ limits: false, email: emailSettings() });
  owner = await signUp(h, uniqueEmail('owner'));
  await createTable(h, owner, {
    name: 'letters',
    policy: 'rules',
    rules: { read: '@auth.verified = true and addressee = @auth.email', create: '@auth.verified = true' },
    columns: [{ name: 'addressee', type: 'text' }, { name: 'body', type: 'text' }],
  });
});
afterAll(() => h.close());

const latestCode = async (to: string, kind: string) => {
  const listed = await h.request().get('/admin/outbox?limit=100').set(owner.auth);
  return (listed.body.data as Array<{ to: string; kind: string; code: string }>).find((mail) => mail.to === to && mail.kind === kind)!.code;
};

describe('@auth.verified and @auth.email in rules', () => {
  it('refuses an unverified account and lets it in, with its own address, once verified and refreshed', async () => {
    const member = await signUp(h);
    const refused = await h.request().post('/api/letters').set(member.auth).send({ addressee: member.email, body: 'hi' });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).details).toMatchObject({ policy: 'rules', operation: 'create' });
    const keyBefore = (await h.request().post('/auth/keys').set(member.auth).send({ name: 'k', access: 'read-write' })).body.data.key as string;
    expect((await h.request().post('/api/letters').set({ Authorization: `Bearer ${keyBefore}` }).send({ addressee: member.email })).status).toBe(403);

    expect((await h.request().post('/auth/verify').send({ email: member.email, code: await latestCode(member.email, 'verify') })).status).toBe(200);
    const refreshed = await h.request().post('/auth/refresh').send({ refreshToken: member.refreshToken });
    const auth = { Authorization: `Bearer ${refreshed.body.data.accessToken as string}` };
    expect((await h.request().post('/api/letters').set(auth).send([{ addressee: member.email, body: 'mine' }, { addressee: 'someone@else.test', body: 'theirs' }])).status).toBe(201);
    const read = await h.request().get('/api/letters').set(auth);
    expect(read.body.data.map((row: { body: string }) => row.body)).toEqual(['mine']);
    // A key made after verification acts with its account's values.
    const key = (await h.request().post('/auth/keys').set(auth).send({ name: 'k2', access: 'read' })).body.data.key as string;
    expect((await h.request().get('/api/letters').set({ Authorization: `Bearer ${key}` })).body.data).toHaveLength(1);
  });
});

describe('the confirm page', () => {
  it('is the console page at /auth/confirm, with its security headers, and opening a link spends nothing', async () => {
    const member = await signUp(h);
    const listed = await h.request().get('/admin/outbox?limit=100').set(owner.auth);
    const mail = (listed.body.data as Array<{ to: string; link: string }>).find((item) => item.to === member.email)!;
    const link = new URL(mail.link);
    expect(link.pathname).toBe('/auth/confirm');
    const page = await h.request().get(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['set-cookie']).toBeUndefined();
    const token = new URLSearchParams(link.hash.slice(1)).get('token');
    expect((await h.request().post('/auth/verify').send({ token })).status).toBe(200);
  });
});
