import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { startReplicated, type Replicated } from '../test-support/standby.js';
import { OWNER_EMAIL, http, screenshot, signInAsOwner, signUp, startServer, watchCsp } from './support.js';

/**
 * The overview's read replicas card (issue 25): the real server on a primary with a real hot standby of its own
 * (test-support/standby.ts), DATABASE_REPLICA_URLS set. The owner sees the standby in use and the reads it served,
 * and sees it skipped once it stops.
 */
let replicated: Replicated;
let server: SpawnedServer;
let anonKey: string;

test.beforeAll(async () => {
  replicated = await startReplicated();
  server = await startServer({ database: { url: replicated.primaryUrl, name: 'postgres', drop: async () => undefined }, env: { DATABASE_REPLICA_URLS: replicated.standbyUrl } });
  const owner = await signUp(server, OWNER_EMAIL);
  anonKey = server.anonKey;
  const created = await http(server, 'POST', '/admin/tables', { token: owner.accessToken, body: { name: 'news', policy: 'public-read', columns: [{ name: 'headline', type: 'text' }] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await replicated.caughtUp();
});
test.afterAll(async () => {
  await server?.stop();
  await replicated?.stop();
});

const card = (page: Page) => page.getByRole('region', { name: 'Read replicas' });

test('the overview shows the standby in use, the reads it served, and that it is skipped once it stops', async ({ page }) => {
  const csp = watchCsp(page);
  for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/api/news`, { headers: { apikey: anonKey } })).status).toBe(200);
  await signInAsOwner(page, server);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview', exact: true }).click();
  const standby = card(page).getByTestId('standby');
  await expect(standby).toHaveCount(1);
  await expect(standby.getByRole('rowheader')).toHaveText(/^127\.0\.0\.1:\d+\/postgres$/);
  await expect(standby.getByRole('cell').nth(0)).toHaveText('in use');
  expect(Number((await standby.getByRole('cell').nth(2).textContent())?.replace(/,/g, ''))).toBeGreaterThanOrEqual(5);
  await expect(card(page).getByTestId('primary-fallbacks')).toHaveText('0');
  await screenshot(page, 'overview-replicas');

  await replicated.stopStandby();
  try {
    // The next health check (every second) finds it down; the overview shows it on its next load.
    await expect(async () => {
      await page.reload();
      await expect(card(page).getByTestId('standby').getByRole('cell').nth(0)).toHaveText('skipped', { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    // Reads go on, answered by the primary.
    expect((await fetch(`${server.url}/api/news`, { headers: { apikey: anonKey } })).status).toBe(200);
  } finally {
    await replicated.startStandby();
  }
  expect(csp).toEqual([]);
});
