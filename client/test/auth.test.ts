import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, createClient, type AuthChangeEvent } from '../src/index.js';
import { PASSWORD, sessionOf, startLive, uniqueEmail, type Live } from './support/live.js';

let live: Live;
let ownerEmail: string;

beforeAll(async () => {
  live = await startLive();
  ownerEmail = uniqueEmail('owner');
});
afterAll(() => live.stop());

async function refreshStatus(refreshToken: string): Promise<number> {
  const response = await fetch(`${live.server.url}/auth/refresh`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refreshToken }),
  });
  return response.status;
}

describe('auth against the server', () => {
  it('reports the settings a sign-in screen needs', async () => {
    await expect(live.client().auth.settings()).resolves.toEqual({
      signupEnabled: true,
      hasOwner: false,
      emailSignIn: false,
      emailVerification: 'optional',
      providers: [],
    });
  });

  it('signs up the first account as owner, later ones as members, and tells listeners', async () => {
    const client = live.client();
    const events: [AuthChangeEvent, string | undefined][] = [];
    client.auth.onChange((event, session) => events.push([event, session?.user.email]));
    const owner = await client.auth.signUp({ email: ownerEmail, password: PASSWORD });
    expect(owner.user).toMatchObject({ email: ownerEmail, role: 'owner' });
    expect(owner.expiresAt).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    expect(events).toEqual([['signed_in', ownerEmail]]);
    const member = await live.client().auth.signUp({ email: uniqueEmail(), password: PASSWORD });
    expect(member.user.role).toBe('member');
    await expect(client.auth.settings()).resolves.toMatchObject({ hasOwner: true });
  });

  it('signs in, reads the profile with createdAt, and signs out on the server too', async () => {
    const client = live.client();
    const session = await sessionOf(client.auth.signIn({ email: ownerEmail, password: PASSWORD }));
    const profile = await client.auth.me();
    expect(profile).toMatchObject({ id: session.user.id, email: ownerEmail, role: 'owner' });
    expect(Date.parse(profile.createdAt)).not.toBeNaN();
    expect(await client.auth.getSession()).toEqual(session);
    await client.auth.signOut();
    expect(await client.auth.getSession()).toBeNull();
    // Sign-out ended the session on the server: its refresh token is dead.
    expect(await refreshStatus(session.refreshToken)).toBe(401);
  });

  it('answers wrong credentials with ApiError 401 UNAUTHORIZED and stays signed out', async () => {
    const client = live.client();
    const error = await client.auth.signIn({ email: ownerEmail, password: 'wrong password' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await client.auth.getSession()).toBeNull();
  });

  it('answers a taken email with 409 CONFLICT naming users.email, and a bad email with 400', async () => {
    const client = live.client();
    await expect(client.auth.signUp({ email: ownerEmail, password: PASSWORD })).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      details: { constraint: 'unique', column: 'users.email' },
    });
    await expect(client.auth.signUp({ email: 'not-an-email', password: PASSWORD })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    await expect(client.auth.signUp({ email: uniqueEmail(), password: 'short' })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('answers me() without a session with 401, whether an anon key is set or not', async () => {
    await expect(live.client().auth.me()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const withoutKey = createClient(live.server.url, undefined, { storage: false });
    await expect(withoutKey.auth.me()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    withoutKey.close();
  });

  it('signs in without an anon key (the console) and makes signed-in calls', async () => {
    const client = createClient(live.server.url, undefined, { storage: false });
    await client.auth.signIn({ email: ownerEmail, password: PASSWORD });
    await expect(client.auth.me()).resolves.toMatchObject({ email: ownerEmail });
    await expect(client.admin.settings()).resolves.toMatchObject({ anonKey: live.server.anonKey });
    client.close();
  });

  it('throws a NetworkError, not an ApiError, when the server cannot be reached', async () => {
    const client = createClient('http://127.0.0.1:9', live.server.anonKey, { storage: false });
    const error = await client.auth.signIn({ email: ownerEmail, password: PASSWORD }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(ApiError);
    client.close();
  });
});

describe('auth on a project with sign-up disabled', () => {
  let closed: Live;
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-config-'));
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify({ signupEnabled: false }));
    closed = await startLive({ env: { CONFIG_PATH: path.join(dir, 'config.json') } });
  });
  afterAll(async () => {
    await closed.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('rejects signUp with 403 SIGNUP_DISABLED', async () => {
    const client = closed.client();
    await expect(client.auth.settings()).resolves.toMatchObject({ signupEnabled: false });
    await expect(client.auth.signUp({ email: uniqueEmail(), password: PASSWORD })).rejects.toMatchObject({
      status: 403,
      code: 'SIGNUP_DISABLED',
    });
    expect(await client.auth.getSession()).toBeNull();
  });
});
