import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, type BasaltClient, type UntypedDatabase } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/** The client's account tools against the real server: sessions, passwords, account deletion, keys, owner tools. */

let live: Live;
let owner: BasaltClient<UntypedDatabase>;
let configDir: string;

beforeAll(async () => {
  configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-client-limits-'));
  const configPath = path.join(configDir, 'config.json');
  await fs.writeFile(configPath, JSON.stringify({ limits: { signinFailuresPerAccountAndAddress: { max: 3, windowSeconds: 600 } } }));
  live = await startLive({ env: { CONFIG_PATH: configPath } });
  owner = live.client();
  await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
  await owner.admin.tables.create({ name: 'notes', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
});
afterAll(async () => {
  await live.stop();
  await fs.rm(configDir, { recursive: true, force: true });
});

async function member(): Promise<{ client: BasaltClient<UntypedDatabase>; email: string; id: string }> {
  const client = live.client();
  const email = uniqueEmail();
  const session = await client.auth.signUp({ email, password: PASSWORD });
  return { client, email, id: session.user.id };
}

describe('sessions', () => {
  it('lists the devices, marks this one, and ends another; ending this one signs the client out', async () => {
    const phone = await member();
    const laptop = live.client();
    await laptop.auth.signIn({ email: phone.email, password: PASSWORD });
    const sessions = await phone.client.auth.sessions();
    expect(sessions).toHaveLength(2);
    const mine = sessions.find((session) => session.current)!;
    const other = sessions.find((session) => !session.current)!;
    await phone.client.auth.signOutSession(other.id);
    expect((await phone.client.auth.sessions()).map((session) => session.id)).toEqual([mine.id]);
    await phone.client.auth.signOutSession(mine.id);
    expect(await phone.client.auth.getSession()).toBeNull();
  });
});

describe('passwords and the account', () => {
  it('changes the password and stays signed in with new tokens; other devices are signed out', async () => {
    const user = await member();
    const other = live.client();
    await other.auth.signIn({ email: user.email, password: PASSWORD });
    const before = await user.client.auth.getSession();
    await user.client.auth.changePassword(PASSWORD, 'a brand new password');
    const after = await user.client.auth.getSession();
    expect(after?.refreshToken).not.toBe(before?.refreshToken);
    await expect(user.client.auth.me()).resolves.toMatchObject({ email: user.email });
    // The other device's refresh token is dead; of the user's sessions only this one is left.
    await expect(user.client.auth.sessions()).resolves.toHaveLength(1);
    await expect(live.client().auth.signIn({ email: user.email, password: 'a brand new password' })).resolves.toBeDefined();
    const wrong = await user.client.auth.changePassword('not the password', 'another new one').catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(ApiError);
    expect((wrong as ApiError).details).toMatchObject({ field: 'currentPassword' });
  });

  it("resets a password with the owner's reset link, and deletes an account", async () => {
    const user = await member();
    const link = await owner.admin.users.resetLink(user.id);
    await live.client().auth.resetPassword(link.token, 'reset by the owner');
    await expect(live.client().auth.signIn({ email: user.email, password: 'reset by the owner' })).resolves.toBeDefined();
    const again = await live.client().auth.resetPassword(link.token, 'once more please').catch((error: unknown) => error);
    expect((again as ApiError).details).toMatchObject({ field: 'token' });

    const client = live.client();
    await client.auth.signIn({ email: user.email, password: 'reset by the owner' });
    await expect(client.auth.deleteAccount('reset by the owner')).resolves.toMatchObject({ id: user.id, email: user.email, role: 'member' });
    expect(await client.auth.getSession()).toBeNull();
  });

  it('lets the owner sign a user out everywhere and delete them', async () => {
    const user = await member();
    await owner.admin.users.signOut(user.id);
    await expect(owner.admin.users.delete(user.id)).resolves.toMatchObject({ id: user.id });
    const gone = await owner.admin.users.delete(user.id).catch((error: unknown) => error);
    expect((gone as ApiError).status).toBe(404);
  });

  it('surfaces a 429 as an ApiError with retryAfter', async () => {
    const user = await member();
    const client = live.client();
    for (let attempt = 0; attempt < 3; attempt++) await client.auth.signIn({ email: user.email, password: 'wrong password' }).catch(() => undefined);
    const limited = await client.auth.signIn({ email: user.email, password: PASSWORD }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(ApiError);
    expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((limited as ApiError).retryAfter).toBeGreaterThan(500);
    expect((limited as ApiError).retryAfter).toBeLessThanOrEqual(600);
  });
});

describe('API keys', () => {
  it('creates a key, uses it from a client made with apiKey, lists and revokes it', async () => {
    const user = await member();
    const created = await user.client.auth.keys.create({ name: 'nightly job', access: 'read-write' });
    expect(created.key.startsWith('bsk_')).toBe(true);
    const script = createClient(live.server.url, undefined, { apiKey: created.key, storage: false });
    try {
      const note = await script.from('notes').create({ body: 'from the job' });
      expect(note.user_id).toBe(user.id);
      await expect(script.from('notes').list()).resolves.toMatchObject({ total: 1 });
      expect((await user.client.auth.keys.list()).map((key) => key.name)).toEqual(['nightly job']);
      await expect(user.client.auth.keys.revoke(created.id)).resolves.toMatchObject({ id: created.id });
      const refused = await script.from('notes').list().catch((error: unknown) => error);
      expect((refused as ApiError).status).toBe(401);
    } finally {
      script.close();
    }
  });

  it('a read key reads and is refused writes', async () => {
    const user = await member();
    const created = await user.client.auth.keys.create({ name: 'reader', access: 'read', expiresAt: Date.now() + 3_600_000 });
    expect(created.expiresAt).not.toBeNull();
    const script = createClient(live.server.url, undefined, { apiKey: created.key, storage: false });
    try {
      await expect(script.from('notes').list()).resolves.toMatchObject({ total: 0 });
      const refused = await script.from('notes').create({ body: 'no' }).catch((error: unknown) => error);
      expect((refused as ApiError).status).toBe(403);
    } finally {
      script.close();
    }
  });
});
