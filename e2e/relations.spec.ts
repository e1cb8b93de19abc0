import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, http, signInAsOwner, screenshot, signUp, startServer, type Account } from './support.js';

/**
 * Relations in the console (issue 12): a reference column added with its table and on-delete rule, what references a
 * table, reference cells that name and link the referenced row, the record form's searchable picker, and the 409 of a
 * delete a restrict reference refuses. One browser page, one server, steps in order.
 */
let server: SpawnedServer;
let owner: Account;
let page: Page;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  const body = { name: 'posts', policy: 'public-read', columns: [{ name: 'title', type: 'text' }] };
  expect((await http(server, 'POST', '/admin/tables', { token: owner.accessToken, body })).status).toBe(201);
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAsOwner(page, server);
});
test.afterAll(async () => {
  await page?.close();
  await server?.stop();
});

const addColumnForm = () => page.getByRole('form', { name: 'Add a column' });
const columnGroup = (index: number) => page.getByRole('group', { name: `Column ${index}` });

test('creates the referenced table in the form', async () => {
  await page.getByRole('button', { name: 'New table' }).click();
  await page.getByLabel('Table name').fill('authors');
  await columnGroup(1).getByLabel('Name', { exact: true }).fill('name');
  await page.getByLabel('Policy').selectOption('public-read');
  await page.getByRole('button', { name: 'Create table' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'authors' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'References to authors' })).toHaveCount(0);
  await expect(page.getByText('No column of any table references authors.')).toBeVisible();
  for (const name of ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']) {
    const body = { id: name.split(' ')[0]!.toLowerCase(), name };
    expect((await http(server, 'POST', '/api/authors', { token: owner.accessToken, body })).status).toBe(201);
  }
});

test('adds a reference column, picking the table and the on-delete rule', async () => {
  await page.goto(`${server.url}/console/tables/posts`);
  const form = addColumnForm();
  await form.getByLabel('Name', { exact: true }).fill('author_id');
  await form.getByLabel('References').selectOption('authors');
  await expect(form.getByLabel('Type')).toBeDisabled();
  await expect(form.getByLabel('Type')).toHaveValue('text');
  // set-null on a column that is not nullable is pointed at before sending.
  await form.getByLabel('On delete').selectOption('set-null');
  await form.getByLabel('Nullable').uncheck();
  await form.getByRole('button', { name: 'Add column' }).click();
  await expect(form.getByText('On delete "set null" needs a nullable column.')).toBeVisible();
  await form.getByLabel('Nullable').check();
  await form.getByLabel('On delete').selectOption('restrict');
  await form.getByRole('button', { name: 'Add column' }).click();

  const columns = page.getByRole('table', { name: 'Columns of posts' });
  const row = columns.getByRole('row', { name: /author_id/ });
  await expect(row).toContainText('→ authors, on delete restrict');
  await row.getByRole('link', { name: 'authors' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'authors' })).toBeVisible();
  const referencedBy = page.getByRole('list', { name: 'References to authors' });
  await expect(referencedBy).toContainText('posts.author_id');
  await expect(referencedBy).toContainText('on delete restrict');
  await screenshot(page, 'referenced-by');
});

test('picks the referenced row in the record form by searching its name, with the keyboard', async () => {
  await page.goto(`${server.url}/console/tables/posts`);
  await page.getByRole('button', { name: 'New record' }).click();
  const form = page.getByRole('form', { name: 'New record in posts' });
  await form.getByLabel('title').fill('On computable numbers');
  const picker = form.getByRole('combobox', { name: 'author_id' });
  const listbox = form.getByRole('listbox', { name: 'authors records' });
  const options = listbox.getByRole('option');
  // Every author has an "a": ordered by name; ArrowUp wraps to the last, Escape closes the list keeping the text.
  await picker.fill('a');
  await expect(options).toHaveText(['Ada Lovelace (ada)', 'Alan Turing (alan)', 'Grace Hopper (grace)']);
  await expect(options.and(page.locator('[aria-selected="true"]'))).toHaveCount(0);
  await picker.press('ArrowUp');
  await expect(options.nth(2)).toHaveAttribute('aria-selected', 'true');
  await expect(picker).toHaveAttribute('aria-activedescendant', (await options.nth(2).getAttribute('id'))!);
  await picker.press('Escape');
  await expect(listbox).toBeHidden();
  await expect(picker).toHaveValue('a');
  await picker.fill('tur');
  await expect(options).toHaveCount(1);
  await expect(options.first()).toHaveText('Alan Turing (alan)');
  await picker.press('ArrowDown');
  await picker.press('Enter');
  await expect(picker).toHaveValue('alan');
  await expect(form.getByText('→ Alan Turing')).toBeVisible();
  await screenshot(page, 'reference-picker');
  await form.getByRole('button', { name: 'Create record' }).click();
  await expect(form).toBeHidden();

  // An id no author has is the server's 400 on the field.
  await page.getByRole('button', { name: 'New record' }).click();
  const second = page.getByRole('form', { name: 'New record in posts' });
  await second.getByLabel('title').fill('Nobody wrote this');
  await second.getByRole('combobox', { name: 'author_id' }).fill('nobody');
  await expect(second.getByText('no authors record has this id')).toBeVisible();
  await second.getByRole('combobox', { name: 'author_id' }).press('Escape');
  await second.getByRole('button', { name: 'Create record' }).click();
  await expect(second.locator('.field-invalid')).toContainText('author_id refers to a record that does not exist');
  await second.getByRole('button', { name: 'Cancel' }).click();
});

test('a reference cell names the referenced row and links to it', async () => {
  const grid = page.getByRole('table', { name: 'Records of posts' });
  const link = grid.getByRole('link', { name: 'Alan Turing in authors' });
  await expect(link).toHaveText('Alan Turing');
  await screenshot(page, 'reference-cells');
  await link.click();
  await expect(page).toHaveURL(/\/console\/tables\/authors\?id=alan$/);
  const authors = page.getByRole('table', { name: 'Records of authors' });
  await expect(authors.getByRole('row')).toHaveCount(3); // two header rows and the one record
  await expect(authors).toContainText('Alan Turing');
  await expect(authors).not.toContainText('Ada Lovelace');
});

test('deleting a referenced row says which column still references it', async () => {
  const authors = page.getByRole('table', { name: 'Records of authors' });
  await authors.getByRole('button', { name: 'Delete record alan' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete record' }).click();
  await expect(page.getByRole('dialog')).toContainText('still referenced from posts.author_id');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  expect((await http(server, 'GET', '/api/authors/alan', { token: owner.accessToken })).status).toBe(200);
});

test('a new table references another and itself, picked in the create form', async () => {
  await page.goto(`${server.url}/console/`);
  await page.getByRole('button', { name: 'New table' }).click();
  // The self reference is picked before the table has its name, and follows the name typed afterwards.
  await columnGroup(1).getByLabel('Name', { exact: true }).fill('parent_id');
  await columnGroup(1).getByLabel('References').selectOption({ label: 'this table' });
  await columnGroup(1).getByLabel('On delete').selectOption('cascade');
  await page.getByRole('button', { name: 'Add a column' }).click();
  await columnGroup(2).getByLabel('Name', { exact: true }).fill('post_id');
  await columnGroup(2).getByLabel('References').selectOption('posts');
  await expect(columnGroup(2).getByLabel('Type')).toBeDisabled();
  await expect(columnGroup(2).getByLabel('On delete')).toHaveValue('restrict');
  await page.getByLabel('Table name').fill('comments');
  await expect(columnGroup(1).getByLabel('References').locator('option:checked')).toHaveText('comments (this table)');
  await page.getByRole('button', { name: 'Create table' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'comments' })).toBeVisible();
  const columns = page.getByRole('table', { name: 'Columns of comments' });
  await expect(columns.getByRole('row', { name: /parent_id/ })).toContainText('→ comments, on delete cascade');
  await expect(columns.getByRole('row', { name: /post_id/ })).toContainText('→ posts, on delete restrict');
  await expect(page.getByRole('list', { name: 'References to comments' })).toContainText('comments.parent_id');
  await columns.getByRole('row', { name: /post_id/ }).getByRole('link', { name: 'posts' }).click();
  await expect(page.getByRole('list', { name: 'References to posts' })).toContainText('comments.post_id');
});
