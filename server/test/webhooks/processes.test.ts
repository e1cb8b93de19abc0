import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test-support/database.js';
import { spawnServer, type SpawnedServer } from '../../../test-support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { LEASE_SECONDS } from '../../src/webhooks/delivery/deliver.js';

/**
 * Webhooks across real processes started as a user starts them, on one database: two processes deliver one queue,
 * every change arrives; a process killed with deliveries in flight loses none (another takes them when the leases end).
 */

let receiver: WebhookReceiver;
let database: TestDatabase;
let configDir: string;
let psql: pg.Client;
const servers: SpawnedServer[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  database = await createTestDatabase();
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-webhooks-'));
  fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ limits: false, webhooks: { allowPrivateTargets: true } }));
  psql = new pg.Client({ connectionString: database.url });
  await psql.connect();
});
afterAll(async () => {
  await psql.end();
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
  await receiver.close();
  fs.rmSync(configDir, { recursive: true, force: true });
});

async function start(): Promise<SpawnedServer> {
  const server = await spawnServer({ database, env: { CONFIG_PATH: path.join(configDir, 'config.json') } });
  servers.push(server);
  return server;
}

async function call(server: SpawnedServer, method: string, route: string, token: string | null, body?: unknown): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
}

describe('webhooks across processes', () => {
  it('two processes deliver psql writes, every change; a process killed mid-delivery loses none', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const signedUp = await call(a!, 'POST', '/auth/signup', null, { email: `owner-${Date.now()}@example.test`, password: 'correct horse' });
    const token = signedUp.body.data!.accessToken as string;
    expect((await call(a!, 'POST', '/admin/tables', token, { name: 'events', policy: 'public-read', columns: [{ name: 'n', type: 'integer' }] })).status).toBe(201);
    const made = await call(b!, 'POST', '/admin/webhooks', token, { url: receiver.url, tables: ['events'] });
    expect(made.status).toBe(201);
    receiver.secrets = [made.body.data!.secret as string];

    await psql.query(`INSERT INTO events (id, n) SELECT 'a' || g, g FROM generate_series(1, 200) g`);
    const first = await receiver.waitForDistinct(200, 30_000);
    expect(first.every((r) => r.verified)).toBe(true);

    // Deliveries in flight in the one process left: the receiver takes them and never answers; then that process dies
    // holding its leases, and a process started afterwards delivers them once the leases end.
    await b!.stop();
    receiver.hang();
    await psql.query(`INSERT INTO events (id, n) SELECT 'b' || g, g FROM generate_series(1, 40) g`);
    await expect.poll(() => receiver.attempts.filter((attempt) => attempt.status === 'hang').length, { timeout: 10_000 }).toBeGreaterThan(0);
    const leased = await psql.query(`SELECT count(*)::int AS n FROM _basalt_webhook_deliveries WHERE lease_until > now() AND status IN ('pending', 'failed')`);
    expect(leased.rows[0].n).toBeGreaterThan(0);
    a!.process.kill('SIGKILL');
    const killedAt = Date.now();
    receiver.accept();
    await start();
    const all = await receiver.waitForDistinct(240, (LEASE_SECONDS + 40) * 1000);
    // The killed process's deliveries waited for their leases to end.
    expect(Date.now() - killedAt).toBeGreaterThan((LEASE_SECONDS - 10) * 1000);
    const ids = new Set(all.map((r) => r.payload.record!.id));
    for (let i = 1; i <= 40; i++) expect(ids.has(`b${i}`), `b${i}`).toBe(true);
    // At least once: a delivery is sent again only when its attempt did not end with an answer.
    expect(receiver.received.length - all.length).toBeLessThanOrEqual(receiver.attempts.filter((attempt) => attempt.status === 'hang').length);
  }, 120_000);
});
