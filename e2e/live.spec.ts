import { expect, test } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, http, signInAsOwner, screenshot, signUp, startServer, type Account } from './support.js';

/** The records grid follows its table live (issue 14): rows written elsewhere appear, deleted ones go. */
let server: SpawnedServer;
let owner: Account;
let member: Account;

test.beforeAll(async () => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  member = await signUp(server, 'writer@example.test');
  const created = await http(server, 'POST', '/admin/tables', { token: owner.accessToken, body: { name: 'todos', columns: [{ name: 'title', type: 'text' }, { name: 'user_id', type: 'text' }] } });
  expect(created.status).toBe(201);
});
test.afterAll(async () => {
  await server?.stop();
});

test('rows written by others appear in the grid and deleted rows go, with a live indicator', async ({ page }) => {
  await signInAsOwner(page, server);
  await page.goto(`${server.url}/console/tables/todos`);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  const grid = page.getByRole('table', { name: 'Records of todos' });
  await expect(page.getByText('No records yet')).toBeVisible();

  // A member writes to an owner-scoped table: the owner's grid shows every row, so it appears here.
  const written = await http(server, 'POST', '/api/todos', { token: member.accessToken, body: { title: 'written by a member' } });
  expect(written.status).toBe(201);
  await expect(grid).toContainText('written by a member');
  await http(server, 'POST', '/api/todos', { token: owner.accessToken, body: [{ title: 'second' }, { title: 'third' }] });
  await expect(grid).toContainText('third');
  await screenshot(page, 'live-grid');

  const id = (written.body.data as { id: string }).id;
  expect((await http(server, 'DELETE', `/api/todos/${id}`, { token: member.accessToken })).status).toBe(200);
  await expect(grid).not.toContainText('written by a member');
  await expect(grid).toContainText('second');
});
