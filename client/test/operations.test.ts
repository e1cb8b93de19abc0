import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERVIEW_BUCKET_SECONDS, OVERVIEW_WINDOW_SECONDS } from '@basalt/contract';
import type { BasaltClient } from '../src/index.js';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

/** The operations helpers (API.md, "Operations"): the OpenAPI document and the owner's overview. */
let live: Live;
let owner: BasaltClient;
let member: BasaltClient;
const ownerEmail = uniqueEmail('owner');

beforeAll(async () => {
  live = await startLive();
  owner = live.client();
  await owner.auth.signUp({ email: ownerEmail, password: PASSWORD });
  member = live.client();
  await member.auth.signUp({ email: uniqueEmail('member'), password: PASSWORD });
  await owner.admin.tables.create({ name: 'notes', policy: 'private', columns: [{ name: 'body', type: 'text' }] });
  await owner.admin.tables.create({ name: 'posts', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] });
});
afterAll(() => live.stop());

const pathsOf = (document: Record<string, unknown>) => Object.keys((document.paths ?? {}) as Record<string, unknown>);

describe('openapi()', () => {
  it("gives the owner the whole document, /admin and every table included", async () => {
    const document = await owner.openapi();
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(pathsOf(document)).toEqual(expect.arrayContaining(['/api/notes', '/api/posts', '/admin/tables']));
  });

  it('gives the anon key only what it may use: public-read tables, no /admin', async () => {
    const paths = pathsOf(await live.client().openapi());
    expect(paths).toContain('/api/posts');
    expect(paths).not.toContain('/api/notes');
    expect(paths.filter((path) => path.startsWith('/admin'))).toEqual([]);
  });
});

describe('admin.overview()', () => {
  it("counts the last hour's requests and sign-ins for the owner", async () => {
    const refused = live.client();
    await expect(refused.auth.signIn({ email: ownerEmail, password: 'not the password' })).rejects.toMatchObject({ status: 401 });
    const again = live.client();
    await again.auth.signIn({ email: ownerEmail, password: PASSWORD });
    const overview = await again.admin.overview();
    expect(overview.bucketSeconds).toBe(OVERVIEW_BUCKET_SECONDS);
    expect(overview.workers).toBeGreaterThanOrEqual(1);
    expect(overview.points).toHaveLength(OVERVIEW_WINDOW_SECONDS / OVERVIEW_BUCKET_SECONDS);
    const times = overview.points.map((point) => Date.parse(point.at));
    expect(times.every((time, index) => index === 0 || time - times[index - 1]! === OVERVIEW_BUCKET_SECONDS * 1000)).toBe(true);
    const sum = (pick: (point: (typeof overview.points)[number]) => number) => overview.points.reduce((total, point) => total + pick(point), 0);
    expect(sum((point) => point.requests)).toBeGreaterThanOrEqual(6);
    expect(sum((point) => point.signIns)).toBeGreaterThanOrEqual(1);
    expect(sum((point) => point.signInFailures)).toBeGreaterThanOrEqual(1);
    expect(sum((point) => point.clientErrors)).toBeGreaterThanOrEqual(1);
    expect(overview.points.some((point) => point.p99Ms !== null && point.p99Ms > 0)).toBe(true);
  });

  it('refuses a member (403) and the anon key (401)', async () => {
    await expect(member.admin.overview()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await expect(live.client().admin.overview()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
