import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, horizontalOverflow, http, screenshot, signInAsOwner, signUp, startServer, type Account } from './support.js';

/**
 * The rule editor and "view as" on a table's page (issue 24, item 5): rules start from the preset's expansion, are
 * checked as they are typed (the position marked), refused by the server at their field, applied after a
 * confirmation, and then a member's and anon's views are looked at without signing in as them. One server, one page,
 * steps in order.
 */
let server: SpawnedServer;
let owner: Account;
let alice: Account;
let bob: Account;
let page: Page;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  alice = await signUp(server, 'alice@example.test');
  bob = await signUp(server, 'bob@example.test');
  const asOwner = { token: owner.accessToken };
  const columns = [
    { name: 'title', type: 'text' },
    { name: 'user_id', type: 'text' },
    { name: 'published', type: 'boolean', default: false },
    { name: 'score', type: 'integer', nullable: true },
  ];
  expect((await http(server, 'POST', '/admin/tables', { ...asOwner, body: { name: 'posts', policy: 'owner-scoped', columns } })).status).toBe(201);
  const rows = [
    { id: 'announcement', title: 'Alice announces', user_id: alice.id, published: true },
    { id: 'alice-draft', title: 'Alice drafts', user_id: alice.id, published: false },
    { id: 'bob-draft', title: 'Bob drafts', user_id: bob.id, published: false },
  ];
  for (const body of rows) expect((await http(server, 'POST', '/admin/tables/posts/records', { ...asOwner, body })).status).toBe(201);
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAsOwner(page, server);
});

test.afterAll(async () => {
  await page?.close();
  await server?.stop();
});

const policyCard = () => page.getByRole('region', { name: 'Policy' });
const editor = () => page.getByRole('form', { name: 'Rules of posts' });
const rule = (member: string) => editor().getByLabel(member, { exact: true });

test('rules start from the preset, show their problems where they are as they are typed, and apply once confirmed', async () => {
  await page.goto(`${server.url}/console/tables/posts`);
  await expect(page.getByRole('heading', { level: 1, name: 'posts' })).toBeVisible();

  // A preset is not changed by one click: the dialog asks, and Cancel leaves it as it was.
  await policyCard().getByRole('radio', { name: /^public-read/ }).click();
  const presetDialog = page.getByRole('dialog', { name: 'Set posts to public-read?' });
  await expect(presetDialog).toContainText('Every row of posts becomes readable by everyone, anon included.');
  await presetDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(presetDialog).toBeHidden();
  await expect(policyCard().getByRole('radio', { name: /^owner-scoped/ })).toBeChecked();

  // Rules: every member starts from owner-scoped's exact expansion.
  await policyCard().getByRole('radio', { name: /^rules/ }).check();
  for (const member of ['read', 'create', 'update', 'updateCheck', 'delete']) await expect(rule(member)).toHaveValue('user_id = @auth.id');
  await expect(editor()).toContainText('posts stays owner-scoped until you save');

  // A wrong name, found in the browser as it is typed, marked where it is.
  await rule('read').fill('published = true or user_idd = @auth.id');
  await expect(rule('read')).toHaveAttribute('aria-invalid', 'true');
  await expect(editor().getByText('posts has no column user_idd')).toBeVisible();
  await expect(editor().getByRole('button', { name: '(line 1, column 21)' })).toBeVisible();
  await expect(editor().getByTestId('rule-excerpt-read').locator('mark')).toHaveText('u');
  // A syntax error in another member, at the end of its text.
  await rule('delete').fill('user_id =');
  await expect(editor().getByTestId('rule-excerpt-delete')).toBeVisible();
  await expect(editor().getByRole('button', { name: '(line 1, column 10)' })).toBeVisible();
  await screenshot(page, 'rules-editor');
  // Nothing is sent while the browser sees a problem.
  await editor().getByRole('button', { name: 'Switch to rules' }).click();
  await expect(editor().getByRole('alert')).toContainText('Fix read, delete first');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await rule('read').fill('published = true or user_id = @auth.id');
  await rule('delete').fill('user_id = @auth.id');
  await expect(rule('read')).toHaveAttribute('aria-invalid', 'false');
  await expect(rule('delete')).toHaveAttribute('aria-invalid', 'false');
  // The browser does not know `score` is a 4-byte integer; the server does, and its refusal lands on the field.
  await rule('create').fill('user_id = @auth.id and score < 3000000000');
  await expect(rule('create')).toHaveAttribute('aria-invalid', 'false');
  await editor().getByRole('button', { name: 'Switch to rules' }).click();
  const dialog = page.getByRole('dialog', { name: 'Apply these rules to posts?' });
  await dialog.getByRole('button', { name: 'Apply rules' }).click();
  await expect(dialog).toBeHidden();
  await expect(rule('create')).toHaveAttribute('aria-invalid', 'true');
  await expect(editor().getByTestId('rule-excerpt-create').locator('mark')).toHaveText('3');
  await expect(page.locator('.page-meta .badge').first()).toHaveText('owner-scoped');

  // Fixed and confirmed: the rules are in force from the API's next request.
  await rule('create').fill('user_id = @auth.id');
  await expect(rule('create')).toHaveAttribute('aria-invalid', 'false');
  await editor().getByRole('button', { name: 'Switch to rules' }).click();
  await expect(dialog).toContainText('published = true or user_id = @auth.id');
  await dialog.getByRole('button', { name: 'Apply rules' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('.page-meta .badge').first()).toHaveText('rules');
  await expect(policyCard().getByText('Saved, in effect now')).toBeVisible();
  await expect(editor().getByRole('button', { name: 'Save rules' })).toBeDisabled();

  const anonKey = ((await http(server, 'GET', '/admin/settings', { token: owner.accessToken })).body.data as { anonKey: string }).anonKey;
  const anonView = await http(server, 'GET', '/api/posts', { apikey: anonKey });
  expect(anonView.status).toBe(200);
  expect((anonView.body.data as Array<{ id: string }>).map((row) => row.id)).toEqual(['announcement']);
  const bobView = await http(server, 'GET', '/api/posts?order=id.asc', { token: bob.accessToken });
  expect((bobView.body.data as Array<{ id: string }>).map((row) => row.id)).toEqual(['announcement', 'bob-draft']);
  const table = await http(server, 'GET', '/admin/tables/posts', { token: owner.accessToken });
  expect(table.body.data).toMatchObject({ policy: 'rules', rules: { read: 'published = true or user_id = @auth.id', create: 'user_id = @auth.id' } });
});

test('view as: the rows another user and anon see, and why one may not delete a row', async () => {
  // Independent of the test before: the rules it saves.
  const rules = { read: 'published = true or user_id = @auth.id', create: 'user_id = @auth.id', update: 'user_id = @auth.id', delete: 'user_id = @auth.id' };
  expect((await http(server, 'PATCH', '/admin/tables/posts', { token: owner.accessToken, body: { policy: 'rules', rules } })).status).toBe(200);
  await page.goto(`${server.url}/console/tables/posts`);
  const viewAs = page.getByRole('region', { name: 'View as' });
  await expect(viewAs).toBeVisible();

  await viewAs.getByLabel('Caller').selectOption({ label: 'bob@example.test (member)' });
  const bobRows = viewAs.getByRole('table', { name: 'Rows bob@example.test sees' });
  await expect(bobRows.locator('tbody tr')).toHaveCount(2);
  await expect(bobRows).toContainText('Alice announces');
  await expect(bobRows).toContainText('Bob drafts');
  await expect(bobRows).not.toContainText('Alice drafts');
  await expect(bobRows.locator('caption')).toContainText('bob@example.test sees 2 of 3 rows');

  await viewAs.getByLabel('Operation', { exact: true }).selectOption('delete');
  await viewAs.getByRole('button', { name: 'Check delete of row announcement' }).click();
  const answer = viewAs.getByTestId('check-answer');
  await expect(answer).toContainText('Refused: bob@example.test may not delete row announcement.');
  await expect(answer).toContainText('user_id = @auth.id');
  await viewAs.getByRole('button', { name: 'Check delete of row bob-draft' }).click();
  await expect(answer).toContainText('Allowed: bob@example.test may delete row bob-draft.');
  // A row bob cannot see, by its id.
  await viewAs.getByLabel('Operation', { exact: true }).selectOption('read');
  await viewAs.getByLabel('Row id').fill('alice-draft');
  await viewAs.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(answer).toContainText('Refused: bob@example.test may not read row alice-draft.');
  await screenshot(page, 'view-as');

  await viewAs.getByLabel('Caller').selectOption({ label: 'anon (no account)' });
  const anonRows = viewAs.getByRole('table', { name: 'Rows anon sees' });
  await expect(anonRows.locator('tbody tr')).toHaveCount(1);
  await expect(anonRows).toContainText('Alice announces');
  // Nothing was written by the checks.
  expect((await http(server, 'GET', '/admin/tables/posts/records', { token: owner.accessToken })).body.total).toBe(3);

  // On a phone the editor, its marks and the caller's rows fit the width.
  await page.setViewportSize({ width: 390, height: 844 });
  await rule('read').fill(`published = true or user_idd = @auth.id and ${'title = \'long\' and '.repeat(4)}true`);
  await expect(editor().getByTestId('rule-excerpt-read')).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
});
