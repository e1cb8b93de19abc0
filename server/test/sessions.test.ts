import { createResetLinkFor } from '../src/auth/passwordChanges.js';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, errorOf, signUp, startHarness, uniqueEmail, type Account, type Harness } from './harness.js';

/** Sessions per device, password change and reset, account deletion and the owner's tools (API.md, "Accounts"). */

let h: Harness;
let owner: Account;

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h, uniqueEmail('owner'));
  await createTable(h, owner, { name: 'notes', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
});
afterAll(() => h.close());

const PASSWORD = 'correct horse';

async function signIn(email: string, password = PASSWORD, userAgent = 'test-agent') {
  const response = await h.request().post('/auth/signin').set('User-Agent', userAgent).send({ email, password });
  return response;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('sessions per device', () => {
  it('lists each device with its user agent, marks the current one, and keeps its id through refreshes', async () => {
    const user = await signUp(h);
    const phone = (await signIn(user.email, PASSWORD, 'Phone/1.0')).body.data;
    const laptop = (await signIn(user.email, PASSWORD, 'Laptop/2.0')).body.data;

    const listed = await h.request().get('/auth/sessions').set(bearer(phone.accessToken));
    expect(listed.status).toBe(200);
    const sessions = listed.body.data as Array<{ id: string; userAgent: string | null; current: boolean; createdAt: string; lastUsedAt: string }>;
    expect(sessions).toHaveLength(3);
    const phoneSession = sessions.find((session) => session.userAgent === 'Phone/1.0')!;
    expect(phoneSession.current).toBe(true);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);
    expect(Object.keys(phoneSession).sort()).toEqual(['createdAt', 'current', 'id', 'lastUsedAt', 'userAgent']);

    // A refresh replaces the token but keeps the session's id, and moves lastUsedAt.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refreshed = await h.request().post('/auth/refresh').send({ refreshToken: phone.refreshToken });
    expect(refreshed.status).toBe(200);
    const again = (await h.request().get('/auth/sessions').set(bearer(refreshed.body.data.accessToken))).body.data as typeof sessions;
    expect(again.map((session) => session.id).sort()).toEqual(sessions.map((session) => session.id).sort());
    const phoneAgain = again.find((session) => session.id === phoneSession.id)!;
    expect(phoneAgain.current).toBe(true);
    expect(phoneAgain.createdAt).toBe(phoneSession.createdAt);
    expect(Date.parse(phoneAgain.lastUsedAt)).toBeGreaterThan(Date.parse(phoneSession.lastUsedAt));
    // The old refresh token stays single-use.
    expect((await h.request().post('/auth/refresh').send({ refreshToken: phone.refreshToken })).status).toBe(401);

    // Ending the laptop's session: its refresh token is dead, the phone's lives on.
    const laptopSession = again.find((session) => session.userAgent === 'Laptop/2.0')!;
    const ended = await h.request().delete(`/auth/sessions/${laptopSession.id}`).set(bearer(refreshed.body.data.accessToken));
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ data: { signedOut: true } });
    expect((await h.request().post('/auth/refresh').send({ refreshToken: laptop.refreshToken })).status).toBe(401);
    expect((await h.request().post('/auth/refresh').send({ refreshToken: refreshed.body.data.refreshToken })).status).toBe(200);
  });

  it("answers 404 for another user's session, and leaves it alone", async () => {
    const alice = await signUp(h);
    const bob = await signUp(h);
    const bobSessions = (await h.request().get('/auth/sessions').set(bob.auth)).body.data as Array<{ id: string }>;
    const response = await h.request().delete(`/auth/sessions/${bobSessions[0]!.id}`).set(alice.auth);
    expect(response.status).toBe(404);
    expect(errorOf(response).code).toBe('NOT_FOUND');
    expect((await h.request().post('/auth/refresh').send({ refreshToken: bob.refreshToken })).status).toBe(200);
  });

  it('needs a signed-in user: anon and no credentials are 401', async () => {
    expect((await h.request().get('/auth/sessions').set('apikey', h.services.tokens.anonKey)).status).toBe(401);
    expect((await h.request().get('/auth/sessions')).status).toBe(401);
  });

  it('keeps one session per device through parallel refreshes with one token (one wins)', async () => {
    const user = await signUp(h);
    const answers = await Promise.all(Array.from({ length: 5 }, () => h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const sessions = (await h.request().get('/auth/sessions').set(user.auth)).body.data as unknown[];
    expect(sessions).toHaveLength(1);
  });
});

describe('password change', () => {
  it('changes the password, ends every other session, and gives the caller new tokens for its own session', async () => {
    const user = await signUp(h);
    const other = (await signIn(user.email)).body.data;
    const sessionsBefore = (await h.request().get('/auth/sessions').set(user.auth)).body.data as Array<{ id: string; current: boolean }>;
    const mine = sessionsBefore.find((session) => session.current)!;

    const changed = await h.request().post('/auth/password').set(user.auth).send({ currentPassword: PASSWORD, newPassword: 'a new password' });
    expect(changed.status).toBe(200);
    expect(Object.keys(changed.body.data).sort()).toEqual(['accessToken', 'refreshToken']);
    expect((await h.request().post('/auth/refresh').send({ refreshToken: other.refreshToken })).status).toBe(401);
    expect((await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })).status).toBe(401);
    const sessionsAfter = (await h.request().get('/auth/sessions').set(bearer(changed.body.data.accessToken))).body.data as Array<{ id: string; current: boolean }>;
    expect(sessionsAfter).toEqual([expect.objectContaining({ id: mine.id, current: true })]);
    expect((await h.request().post('/auth/refresh').send({ refreshToken: changed.body.data.refreshToken })).status).toBe(200);

    expect((await signIn(user.email)).status).toBe(401);
    expect((await signIn(user.email, 'a new password')).status).toBe(200);
  });

  it('refuses a wrong current password with 400 naming currentPassword, and a short new one naming newPassword', async () => {
    const user = await signUp(h);
    const wrong = await h.request().post('/auth/password').set(user.auth).send({ currentPassword: 'not it at all', newPassword: 'a new password' });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'currentPassword' } });
    const short = await h.request().post('/auth/password').set(user.auth).send({ currentPassword: PASSWORD, newPassword: 'short' });
    expect(errorOf(short)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'newPassword' } });
    const extra = await h.request().post('/auth/password').set(user.auth).send({ currentPassword: PASSWORD, newPassword: 'a new password', role: 'owner' });
    expect(errorOf(extra)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'role' } });
    expect((await signIn(user.email)).status).toBe(200);
  });
});

describe('account deletion', () => {
  it('deletes the caller with their sessions and the rows their owner column cascades to', async () => {
    const user = await signUp(h);
    expect((await h.request().post('/api/notes').set(user.auth).send({ body: 'mine' })).status).toBe(201);
    const wrong = await h.request().delete('/auth/me').set(user.auth).send({ password: 'not the password' });
    expect(errorOf(wrong)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'password' } });

    const deleted = await h.request().delete('/auth/me').set(user.auth).send({ password: PASSWORD });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id: user.id, email: user.email, role: 'member' });
    expect((await signIn(user.email)).status).toBe(401);
    expect((await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })).status).toBe(401);
    const rows = await h.services.knex('notes').where({ user_id: user.id }).count({ n: '*' }).first();
    expect(Number(rows?.n)).toBe(0);
  });

  it('refuses the owner (400) and keeps the account', async () => {
    const response = await h.request().delete('/auth/me').set(owner.auth).send({ password: PASSWORD });
    expect(response.status).toBe(400);
    expect((await signIn(owner.email)).status).toBe(200);
  });
});

describe("the owner's tools", () => {
  it('deletes a user (404 for an unknown one, 400 for the owner), and only the owner may', async () => {
    const user = await signUp(h);
    const member = await signUp(h);
    expect((await h.request().delete(`/admin/users/${user.id}`).set(member.auth)).status).toBe(403);
    const deleted = await h.request().delete(`/admin/users/${user.id}`).set(owner.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id: user.id, email: user.email, role: 'member' });
    expect((await h.request().delete(`/admin/users/${user.id}`).set(owner.auth)).status).toBe(404);
    expect((await h.request().delete(`/admin/users/${owner.id}`).set(owner.auth)).status).toBe(400);
  });

  it('signs a user out everywhere', async () => {
    const user = await signUp(h);
    const second = (await signIn(user.email)).body.data;
    const response = await h.request().post(`/admin/users/${user.id}/signout`).set(owner.auth);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { signedOut: true } });
    for (const token of [user.refreshToken, second.refreshToken]) expect((await h.request().post('/auth/refresh').send({ refreshToken: token })).status).toBe(401);
    expect((await h.request().post('/admin/users/nobody/signout').set(owner.auth)).status).toBe(404);
  });

  it('makes a single-use reset link that sets a new password and ends every session', async () => {
    const user = await signUp(h);
    const link = await h.request().post(`/admin/users/${user.id}/reset-link`).set(owner.auth);
    expect(link.status).toBe(201);
    const { token, expiresAt } = link.body.data as { token: string; expiresAt: string };
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    const stored = await h.services.knex('_basalt_reset_tokens').select('token_hash');
    expect(JSON.stringify(stored)).not.toContain(token);

    const reset = await h.request().post('/auth/reset').send({ token, newPassword: 'reset password' });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ data: { signedOut: true } });
    expect((await h.request().post('/auth/refresh').send({ refreshToken: user.refreshToken })).status).toBe(401);
    expect((await signIn(user.email, 'reset password')).status).toBe(200);

    const reused = await h.request().post('/auth/reset').send({ token, newPassword: 'another password' });
    expect(reused.status).toBe(400);
    expect(errorOf(reused)).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'token' } });
    expect((await signIn(user.email, 'reset password')).status).toBe(200);
  });

  it('refuses an expired or unknown token with 400 naming token, and one of two parallel resets wins', async () => {
    const user = await signUp(h);
    const expired = (await h.request().post(`/admin/users/${user.id}/reset-link`).set(owner.auth)).body.data.token as string;
    await h.services.knex('_basalt_reset_tokens').update({ expires_at: h.services.knex.raw("now() - interval '1 second'") });
    expect(errorOf(await h.request().post('/auth/reset').send({ token: expired, newPassword: 'reset password' }))).toMatchObject({ details: { field: 'token' } });
    expect(errorOf(await h.request().post('/auth/reset').send({ token: 'made-up', newPassword: 'reset password' }))).toMatchObject({ details: { field: 'token' } });
    expect((await h.request().post('/admin/users/nobody/reset-link').set(owner.auth)).status).toBe(404);

    const token = (await h.request().post(`/admin/users/${user.id}/reset-link`).set(owner.auth)).body.data.token as string;
    const answers = await Promise.all(['first password', 'second password'].map((newPassword) => h.request().post('/auth/reset').send({ token, newPassword })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });

  it('prints a reset link from the command line: npm run admin -- reset-link <email>', async () => {
    const user = await signUp(h);
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/admin.mjs', 'reset-link', user.email], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATABASE_URL: h.database.url },
    });
    const token = decodeURIComponent(/\/console\/reset#token=([^\s]+)/.exec(stdout)?.[1] ?? '');
    expect(token).not.toBe('');
    expect((await h.request().post('/auth/reset').send({ token, newPassword: 'from the shell' })).status).toBe(200);
    expect((await signIn(user.email, 'from the shell')).status).toBe(200);
    const unknown = promisify(execFile)(process.execPath, ['scripts/admin.mjs', 'reset-link', 'nobody@example.test'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATABASE_URL: h.database.url },
    });
    await expect(unknown).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No account with the email nobody@example.test') });
  });

  it('is the reset-link of the admin command too (by email)', async () => {
    const user = await signUp(h);
    const link = await createResetLinkFor(h.services.knex, user.email.toUpperCase());
    expect((await h.request().post('/auth/reset').send({ token: link.token, newPassword: 'from the command' })).status).toBe(200);
    await expect(createResetLinkFor(h.services.knex, 'nobody@example.test')).rejects.toThrow(/No account/);
  });
});
