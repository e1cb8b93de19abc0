import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test-support/database.js';
import { spawnServer, type SpawnedServer } from '../../../test-support/server.js';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test-support/smtp.js';
import { LEASE_SECONDS } from '../../src/auth/email/sender.js';

/**
 * The outbox across real processes started as a user starts them: two processes send one outbox, each mail once; a
 * process killed while it holds mails mid-send leaves them to another once their lease ends.
 */

let smtp: SmtpCatcher;
let database: TestDatabase;
let configDir: string;
const servers: SpawnedServer[] = [];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  database = await createTestDatabase();
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-mail-'));
  fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ limits: false, email: { from: 'app@example.test' } }));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
  await smtp.close();
  fs.rmSync(configDir, { recursive: true, force: true });
});

async function start(): Promise<SpawnedServer> {
  const server = await spawnServer({ database, env: { SMTP_URL: smtp.url, CONFIG_PATH: path.join(configDir, 'config.json'), PUBLIC_URL: 'http://basalt.example.test' } });
  servers.push(server);
  return server;
}

async function signUp(server: SpawnedServer, email: string): Promise<void> {
  const response = await fetch(`${server.url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
  expect(response.status).toBe(201);
}

describe('the outbox across processes', () => {
  it('two processes deliver 40 mails, each exactly once', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const emails = Array.from({ length: 40 }, (_, i) => `pair-${i}-${Date.now()}@example.test`);
    await Promise.all(emails.map((email, i) => signUp(i % 2 === 0 ? a! : b!, email)));
    for (const email of emails) await smtp.waitFor(email, 1, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    for (const email of emails) expect(smtp.to(email), email).toHaveLength(1);
  }, 60_000);

  it('a process killed while sending leaves its mails to another once the lease ends', async () => {
    const doomed = await start();
    smtp.stall();
    const email = `killed-${Date.now()}@example.test`;
    await signUp(doomed, email);
    // The doomed process leased the mail and is stuck sending it.
    await expect.poll(() => smtp.stalled, { timeout: 10_000 }).toBeGreaterThan(0);
    doomed.process.kill('SIGKILL');
    await new Promise((resolve) => doomed.process.once('exit', resolve));
    smtp.accept();
    const killedAt = Date.now();
    await start();
    const mail = await smtp.waitFor(email, 1, (LEASE_SECONDS + 20) * 1000);
    expect(mail.subject).toContain('Confirm');
    // Not before the lease ended: the survivor waited for it rather than sending a mail another process holds.
    expect(mail.receivedAt - killedAt).toBeGreaterThan((LEASE_SECONDS - 10) * 1000);
  }, (LEASE_SECONDS + 60) * 1000);

  it('without SMTP_URL, outside production, prints each mail\'s link in the log', async () => {
    const plain = await spawnServer({ database, env: { CONFIG_PATH: path.join(configDir, 'config.json'), LOG_LEVEL: 'info' } });
    servers.push(plain);
    const email = `logged-${Date.now()}@example.test`;
    await signUp(plain, email);
    await expect.poll(() => plain.output(), { timeout: 10_000 }).toMatch(new RegExp(`Mail not sent \\(no SMTP_URL\\): verify to ${email}: http://localhost:${new URL(plain.url).port}/auth/confirm#type=verify&token=`));
  });
});
