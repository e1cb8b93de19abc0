import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startHarness, uniqueEmail, type Harness } from './harness.js';

describe('the first signup on an empty project', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('makes exactly one owner when 20 signups race', async () => {
    expect((await h.request().get('/auth/settings')).body.data.hasOwner).toBe(false);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => h.request().post('/auth/signup').send({ email: uniqueEmail('race'), password: 'password1' })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    const roles = responses.map((response) => response.body.data.user.role as string);
    expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
    expect(roles.filter((role) => role === 'member')).toHaveLength(19);
    const owners = await h.services.knex('users').where({ role: 'owner' }).count({ n: '*' }).first();
    expect(owners).toEqual({ n: 1 });
    expect((await h.request().get('/auth/settings')).body.data.hasOwner).toBe(true);
  });

  it('still makes every later account a member', async () => {
    const response = await h.request().post('/auth/signup').send({ email: uniqueEmail(), password: 'password1' });
    expect(response.body.data.user.role).toBe('member');
  });

  it('makes exactly one owner when an email collides inside the race too', async () => {
    const email = uniqueEmail('same');
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => h.request().post('/auth/signup').send({ email, password: 'password1' })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 201)) {
      expect(response.status).toBe(409);
      expect(errorOf(response).details).toEqual({ constraint: 'unique', column: 'users.email' });
    }
  });
});

describe('with signupEnabled false', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ signupEnabled: false });
  });
  afterAll(() => h.close());

  it('answers 403 SIGNUP_DISABLED and says so in /auth/settings', async () => {
    const response = await h.request().post('/auth/signup').send({ email: uniqueEmail(), password: 'password1' });
    expect(response.status).toBe(403);
    expect(errorOf(response).code).toBe('SIGNUP_DISABLED');
    expect((await h.request().get('/auth/settings')).body).toEqual({ data: { signupEnabled: false, hasOwner: false, emailSignIn: false, emailVerification: 'optional', providers: [] } });
    expect(await h.services.knex('users').count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});
