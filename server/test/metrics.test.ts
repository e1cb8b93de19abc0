import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERVIEW_BUCKET_SECONDS, OVERVIEW_WINDOW_SECONDS, type Overview } from '@basalt/contract';
import { anonHeaders, createTable, errorOf, signUp, startHarness, type Account, type Harness } from './harness.js';
import { labelValues, parseSamples, promtoolCheck, total, type Sample } from './metricsText.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const T = 'gadgets';
const PASSWORD = 'correct horse';

let h: Harness;
let owner: Account;
let member: Account;
let recordId: string;

beforeAll(async () => {
  h = await startHarness({ metricsToken: TOKEN });
  owner = await signUp(h, undefined, PASSWORD);
  member = await signUp(h, undefined, PASSWORD);
  await createTable(h, owner, { name: T, columns: [{ name: 'title', type: 'text' }], policy: 'public-read' });
  const created = await h.request().post(`/api/${T}`).set(owner.auth).send({ title: 'one' });
  expect(created.status).toBe(201);
  recordId = created.body.data.id as string;
});
afterAll(() => h.close());

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const response = await h.request().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return { text: response.text, samples: parseSamples(response.text) };
}

const requests = (samples: Sample[], route: string, status: string, method = 'GET') => total(samples, 'basalt_http_requests_total', { method, route, status });
const timed = (samples: Sample[], route: string, status: string) => total(samples, 'basalt_http_request_duration_seconds_count', { method: 'GET', route, status });

describe('GET /metrics: the token', () => {
  it('answers 401 in the envelope without the token, with a wrong one, or with a user token or the anon key', async () => {
    const attempts = [
      h.request().get('/metrics'),
      h.request().get('/metrics').set('Authorization', `Bearer ${TOKEN}x`),
      h.request().get('/metrics').set('Authorization', `Bearer ${TOKEN.slice(0, -1)}`),
      h.request().get('/metrics').set('Authorization', TOKEN),
      h.request().get('/metrics').set(owner.auth),
      h.request().get('/metrics').set('Authorization', `Bearer ${h.services.tokens.anonKey}`),
      h.request().get('/metrics').set(anonHeaders(h)),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(errorOf(response).code).toBe('UNAUTHORIZED');
    }
  });

  it('does not exist without METRICS_TOKEN: 404 in the envelope, whatever the credentials', async () => {
    const off = await startHarness({ database: h.database });
    try {
      for (const auth of [{}, { Authorization: `Bearer ${TOKEN}` }, owner.auth]) {
        const response = await off.request().get('/metrics').set(auth);
        expect(response.status).toBe(404);
        expect(errorOf(response).code).toBe('NOT_FOUND');
      }
      expect(off.services.telemetry.metrics).toBeNull();
    } finally {
      await off.close();
    }
  });
});

describe('GET /metrics: what is counted', () => {
  it('counts fast-path reads under their table template, and never an id or an unknown name as a label', async () => {
    const before = (await scrape()).samples;
    const reads = 5;
    for (let i = 0; i < reads; i++) expect((await h.request().get(`/api/${T}/${recordId}`).set(anonHeaders(h))).status).toBe(200);
    expect((await h.request().get(`/api/${T}?limit=1`).set(anonHeaders(h))).status).toBe(200);
    expect((await h.request().get(`/api/${T}/no-such-record-id-42`).set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().get('/api/crafted_table_x1/some-id-x2').set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().get('/api/crafted_table_x3').set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().get('/api/crafted%zz').set(anonHeaders(h))).status).toBe(400);
    expect((await h.request().get('/no/such/route/x4')).status).toBe(404);
    expect((await h.request().get('/api/a/b/c-x5').set(anonHeaders(h))).status).toBe(404);
    const { text, samples } = await scrape();

    expect(requests(samples, `/api/${T}/:id`, '200') - requests(before, `/api/${T}/:id`, '200')).toBe(reads);
    expect(timed(samples, `/api/${T}/:id`, '200') - timed(before, `/api/${T}/:id`, '200')).toBe(reads);
    expect(requests(samples, `/api/${T}`, '200') - requests(before, `/api/${T}`, '200')).toBe(1);
    expect(requests(samples, `/api/${T}/:id`, '404') - requests(before, `/api/${T}/:id`, '404')).toBe(1);
    expect(requests(samples, '/api/:table/:id', '404') - requests(before, '/api/:table/:id', '404')).toBe(1);
    expect(requests(samples, '/api/:table', '404') - requests(before, '/api/:table', '404')).toBe(1);
    expect(requests(samples, '/api/:table', '400') - requests(before, '/api/:table', '400')).toBe(1);
    expect(requests(samples, '(unmatched)', '404') - requests(before, '(unmatched)', '404')).toBe(2);
    for (const value of [recordId, 'no-such-record-id-42', 'crafted', 'x1', 'x2', 'x3', 'x4', 'x5', '%zz']) expect(text).not.toContain(value);
    const apiRoutes = [...labelValues(samples, 'route')].filter((route) => route.startsWith('/api'));
    expect(apiRoutes.sort()).toEqual(['/api/:table', '/api/:table/:id', `/api/${T}`, `/api/${T}/:id`]);
  });

  it('names files by template: downloads and resumable uploads, never an id or a crafted name', async () => {
    const before = (await scrape()).samples;
    expect((await h.request().get('/files/crafted_bucket_x7/file-id-x8').set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().head('/files/crafted_bucket_x7/file-id-x8').set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().patch('/files/crafted_bucket_x7/uploads/upload-id-x9').set(anonHeaders(h))).status).not.toBe(200);
    const { text, samples } = await scrape();
    expect(requests(samples, '/files/:table/:id', '404') - requests(before, '/files/:table/:id', '404')).toBeGreaterThanOrEqual(1);
    expect([...labelValues(samples, 'route')]).toContain('/files/:table/uploads');
    for (const value of ['x7', 'x8', 'x9']) expect(text).not.toContain(value);
  });

  it('names Express routes by their full template, also when the route answers with an error', async () => {
    const before = (await scrape()).samples;
    expect((await h.request().get(`/admin/tables/${T}`).set(owner.auth)).status).toBe(200);
    expect((await h.request().get('/admin/tables/not_a_table_x6').set(owner.auth)).status).toBe(404);
    expect((await h.request().get('/auth/settings')).status).toBe(200);
    expect((await h.request().get('/health')).status).toBe(200);
    const { text, samples } = await scrape();
    expect(requests(samples, '/admin/tables/:name', '200') - requests(before, '/admin/tables/:name', '200')).toBe(1);
    expect(requests(samples, '/admin/tables/:name', '404') - requests(before, '/admin/tables/:name', '404')).toBe(1);
    expect(requests(samples, '/auth/settings', '200') - requests(before, '/auth/settings', '200')).toBe(1);
    expect(requests(samples, '/health', '200') - requests(before, '/health', '200')).toBe(1);
    // The scrapes themselves: each one counted when it finished.
    expect(requests(samples, '/metrics', '200') - requests(before, '/metrics', '200')).toBe(1);
    expect(text).not.toContain('not_a_table_x6');
  });

  it('counts sign-ins by outcome, schema reloads, and reads the pool, hashing and realtime gauges', async () => {
    const before = (await scrape()).samples;
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: PASSWORD })).status).toBe(200);
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: 'wrong password' })).status).toBe(401);
    expect((await h.request().post('/auth/signin').send({ email: 'not an email' })).status).toBe(400);
    await createTable(h, owner, { name: 'reloaded', columns: [{ name: 'title', type: 'text' }] });
    const { samples } = await scrape();
    const signIns = (outcome: string, from: Sample[]) => total(from, 'basalt_signins_total', { outcome });
    expect(signIns('success', samples) - signIns('success', before)).toBe(1);
    expect(signIns('refused', samples) - signIns('refused', before)).toBe(1);
    expect(signIns('invalid', samples) - signIns('invalid', before)).toBe(1);
    expect(signIns('rate_limited', samples)).toBe(0);
    expect(requests(samples, '/auth/signin', '401', 'POST') - requests(before, '/auth/signin', '401', 'POST')).toBe(1);
    expect(total(samples, 'basalt_schema_reloads_total')).toBeGreaterThan(total(before, 'basalt_schema_reloads_total'));
    expect(total(samples, 'basalt_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'basalt_db_pool_idle_connections')).toBeLessThanOrEqual(total(samples, 'basalt_db_pool_connections'));
    expect(samples.some((s) => s.name === 'basalt_db_pool_waiting_queries')).toBe(true);
    expect(samples.some((s) => s.name === 'basalt_password_jobs' && s.labels.state === 'queued')).toBe(true);
    expect(total(samples, 'basalt_realtime_streams')).toBe(0);
    expect(total(samples, 'basalt_scrape_workers', { state: 'answered' })).toBe(1);
    expect(total(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('passes promtool check metrics', async () => {
    const { text } = await scrape();
    const { code, output } = await promtoolCheck(text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });
});

describe('GET /admin/overview', () => {
  it('is the owner\'s: a member gets 403, anon 401', async () => {
    expect(errorOf(await h.request().get('/admin/overview').set(member.auth)).code).toBe('FORBIDDEN');
    expect((await h.request().get('/admin/overview').set(anonHeaders(h))).status).toBe(401);
  });

  it('counts the last hour in 10 s points, oldest first, with errors, p99 and sign-ins', async () => {
    const sum = (overview: Overview, key: 'requests' | 'clientErrors' | 'serverErrors' | 'signIns' | 'signInFailures') => overview.points.reduce((n, point) => n + point[key], 0);
    const first = (await h.request().get('/admin/overview').set(owner.auth)).body.data as Overview;
    for (let i = 0; i < 3; i++) expect((await h.request().get(`/api/${T}/${recordId}`).set(anonHeaders(h))).status).toBe(200);
    expect((await h.request().get('/api/nothing_here').set(anonHeaders(h))).status).toBe(404);
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: PASSWORD })).status).toBe(200);
    expect((await h.request().post('/auth/signin').send({ email: member.email, password: 'wrong password' })).status).toBe(401);
    const response = await h.request().get('/admin/overview').set(owner.auth);
    expect(response.status).toBe(200);
    const overview = response.body.data as Overview;
    expect(overview.bucketSeconds).toBe(OVERVIEW_BUCKET_SECONDS);
    expect(overview.workers).toBe(1);
    expect(overview.points).toHaveLength(OVERVIEW_WINDOW_SECONDS / OVERVIEW_BUCKET_SECONDS);
    const times = overview.points.map((point) => Date.parse(point.at));
    times.forEach((time, i) => i > 0 && expect(time - times[i - 1]!).toBe(OVERVIEW_BUCKET_SECONDS * 1000));
    expect(Date.now() - times.at(-1)!).toBeLessThan(OVERVIEW_BUCKET_SECONDS * 1000);
    // Six requests and the first overview request finished between the two.
    expect(sum(overview, 'requests') - sum(first, 'requests')).toBe(7);
    expect(sum(overview, 'clientErrors') - sum(first, 'clientErrors')).toBe(2);
    expect(sum(overview, 'signIns') - sum(first, 'signIns')).toBe(1);
    expect(sum(overview, 'signInFailures') - sum(first, 'signInFailures')).toBe(1);
    expect(overview.points.at(-1)!.p99Ms ?? overview.points.at(-2)!.p99Ms).toBeGreaterThan(0);
    const empty = overview.points.filter((point) => point.requests === 0);
    expect(empty.length).toBeGreaterThan(0);
    for (const point of empty) expect(point).toMatchObject({ clientErrors: 0, serverErrors: 0, signIns: 0, signInFailures: 0, p99Ms: null });
  });
});
