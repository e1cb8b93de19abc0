import fs from 'node:fs/promises';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, http, signInAsOwner, signUp, startServer, type Account } from './support.js';

/**
 * The records screen's tools of the query language's part 2 (issue 30): a CSV file imported with its preview (and
 * two refused, one naming its line), the rows exported as CSV (one page and several), the counts of a group-by
 * filtering the grid, and chosen rows edited and deleted together, ids holding a comma and quotes among them.
 */
test.describe.configure({ mode: 'serial' });

let server: SpawnedServer;
let context: BrowserContext;
let page: Page;
let owner: Account;

/** Ids with a comma and with quotes: the chosen rows' `id[in]` list must quote them. */
const GOOD_CSV = [
  'id,title,status,score,note',
  't1,Plain,open,1,',
  '"a,1","Buy milk, eggs",done,2,"two',
  'lines"',
  '"say ""hi""","Say ""hi""",done,3,""',
  't4,=SUM(A1),done,4,x',
  't5,Fifth,open,5,',
  't6,Sixth,open,6,',
  't7,Seventh,open,7,',
  '',
].join('\n');

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  owner = await signUp(server, OWNER_EMAIL);
  const created = await http(server, 'POST', '/admin/tables', {
    token: owner.accessToken,
    body: {
      name: 'tasks',
      columns: [
        { name: 'title', type: 'text', nullable: false },
        { name: 'status', type: 'text' },
        { name: 'score', type: 'integer' },
        { name: 'note', type: 'text' },
      ],
      policy: 'private',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  await signInAsOwner(page, server);
  await page.getByRole('table', { name: 'Tables' }).getByRole('link', { name: 'tasks', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'tasks' })).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
  await server?.stop();
});

const records = () => page.getByRole('region', { name: 'Records', exact: true });
const grid = () => page.getByRole('table', { name: 'Records of tasks', exact: true });
const status = () => page.locator('.pager-status');
const importPanel = () => page.getByRole('region', { name: 'Import CSV into tasks' });
const filterInput = (column: string) => page.getByLabel(`Filter ${column}`, { exact: true });

async function chooseFile(name: string, text: string): Promise<void> {
  await importPanel().getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
}

async function filterBy(column: string, value: string): Promise<void> {
  await filterInput(column).fill(value);
  await filterInput(column).press('Enter');
}

/** Clicks an export button and answers the downloaded file's name and text. */
async function exportCsv(button: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), records().getByRole('button', { name: button }).click()]);
  return { name: download.suggestedFilename(), text: await fs.readFile(await download.path(), 'utf8') };
}

async function total(query: string): Promise<number | undefined> {
  const answer = await http(server, 'GET', `/admin/tables/tasks/records?${query}`, { token: owner.accessToken });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.total;
}

test('a file is previewed, refused with the line at fault, then imported', async () => {
  await records().getByRole('button', { name: 'Import CSV' }).click();

  // An unknown column is flagged in the preview, and the server refuses it by name.
  await chooseFile('colours.csv', 'title,colour\nA,red\n');
  const preview = importPanel().getByRole('table', { name: 'Preview of colours.csv' });
  await expect(preview.getByRole('columnheader', { name: /colour/ })).toContainText('unknown column');
  await expect(preview.getByRole('columnheader', { name: 'title' })).not.toContainText('unknown');
  await expect(importPanel().getByText('tasks has no column colour')).toBeVisible();
  await importPanel().getByRole('button', { name: 'Import 1 record' }).click();
  await expect(importPanel().getByRole('alert')).toContainText('colour');

  // A value the column cannot take: the server names the line where its record starts, and nothing is written.
  await chooseFile('scores.csv', 'title,score\nA,1\nB,lots\nC,3\n');
  await expect(importPanel().getByText('3 records in scores.csv.')).toBeVisible();
  await importPanel().getByRole('button', { name: 'Import 3 records' }).click();
  await expect(importPanel().getByRole('alert')).toContainText('Line 3, column score');
  expect(await total('count=exact')).toBe(0);

  await chooseFile('tasks.csv', GOOD_CSV);
  await expect(importPanel().getByText('7 records in tasks.csv, the first 5 shown.')).toBeVisible();
  const good = importPanel().getByRole('table', { name: 'Preview of tasks.csv' });
  await expect(good.locator('tbody tr')).toHaveCount(5);
  await expect(good.getByRole('cell', { name: 'Buy milk, eggs' })).toBeVisible();
  await expect(importPanel().getByRole('alert')).toHaveCount(0);
  await importPanel().getByRole('button', { name: 'Import 7 records' }).click();
  await expect(importPanel().getByRole('status')).toHaveText('Imported 7 records from tasks.csv.');
  await expect(status()).toHaveText('1–7 of 7 · page 1 of 1');
  await expect(grid().getByRole('cell', { name: 'Say "hi"', exact: true })).toBeVisible();
  await importPanel().getByRole('button', { name: 'Close' }).click();
});

test('the rows export as one CSV: cells as imported, formulas neutralised', async () => {
  const { name, text } = await exportCsv('Export CSV');
  expect(name).toBe('tasks.csv');
  const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
  expect(rows.map((row) => row.id).sort()).toEqual(['a,1', 'say "hi"', 't1', 't4', 't5', 't6', 't7']);
  const byId = new Map(rows.map((row) => [row.id, row]));
  expect(byId.get('a,1')).toMatchObject({ title: 'Buy milk, eggs', status: 'done', score: '2', note: 'two\nlines' });
  expect(byId.get('t4')?.title).toBe("'=SUM(A1)");
  // A null is an empty cell, an empty string a quoted one (neither row has a comma inside a cell).
  const lines = text.split(/\r?\n/);
  const note = lines[0]!.split(',').indexOf('note');
  expect(lines.find((line) => line.startsWith('t1,'))?.split(',')[note]).toBe('');
  expect(lines.find((line) => line.startsWith('"say ""hi""",'))?.split(',')[note]).toBe('""');
});

test('an export walks every page of the filter, with one header row', async () => {
  const bulk = Array.from({ length: 150 }, (_, i) => ({ id: `b${String(i).padStart(3, '0')}`, title: `Bulk ${i}`, status: 'bulk', score: i }));
  const inserted = await http(server, 'POST', '/admin/tables/tasks/records', { token: owner.accessToken, body: bulk });
  expect(inserted.status, JSON.stringify(inserted.body)).toBe(201);
  await filterBy('status', 'bulk');
  await expect(status()).toHaveText('1–20 of 150 · page 1 of 8');
  const { text } = await exportCsv('Export filtered CSV');
  const lines = parse(text) as string[][];
  const header = lines[0]!;
  expect(lines.filter((line) => line.join(',') === header.join(','))).toHaveLength(1);
  const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
  expect(rows).toHaveLength(150);
  expect(new Set(rows.map((row) => row.id)).size).toBe(150);
  expect(rows.every((row) => row.status === 'bulk')).toBe(true);
  await records().getByRole('button', { name: 'Clear filters' }).click();
});

test('a group-by counts the rows per value and filters the grid by a group', async () => {
  await records().getByRole('button', { name: 'Group by' }).click();
  await page.getByLabel('Group by').selectOption('status');
  const counts = page.getByRole('table', { name: 'Counts of tasks by status' });
  await expect(counts.locator('tbody tr')).toHaveCount(3);
  await expect(counts.locator('tbody tr').first()).toHaveText(/bulk\s*150/);
  await expect(counts.getByRole('row', { name: /open/ })).toContainText('4');
  await counts.getByRole('button', { name: 'done', exact: true }).click();
  await expect(filterInput('status')).toHaveValue('done');
  await expect(status()).toHaveText('1–3 of 3 · page 1 of 1');
  // The counts follow the grid's filters.
  await expect(counts.locator('tbody tr')).toHaveCount(1);
  await page.getByRole('region', { name: 'Group tasks' }).getByRole('button', { name: 'Close' }).click();
});

test('chosen rows are edited together, the server refusing a value on its field', async () => {
  await page.getByLabel('Select all records on this page').check();
  await expect(records().getByRole('group', { name: 'Chosen records' })).toContainText('3 records selected');
  await page.getByRole('button', { name: 'Edit selected' }).click();
  const form = page.getByRole('form', { name: 'Edit 3 records' });
  await form.getByLabel('Column').selectOption('score');
  await form.getByLabel('New value').fill('lots');
  await form.getByRole('button', { name: 'Set on 3 records' }).click();
  await expect(form.getByLabel('New value')).toHaveAttribute('aria-invalid', 'true');
  expect(await total('score[eq]=2&status[eq]=done')).toBe(1);

  await form.getByLabel('Column').selectOption('status');
  await form.getByLabel('New value').fill('archived');
  await form.getByRole('button', { name: 'Set on 3 records' }).click();
  await expect(records().getByRole('status').filter({ hasText: 'Changed' })).toHaveText('Changed 3 records.');
  await expect(page.getByText('No records match these filters')).toBeVisible();
  expect(await total('status[eq]=archived')).toBe(3);
  expect(await total(`status[eq]=archived&id[in]=${encodeURIComponent('"a,1","say ""hi""",t4')}`)).toBe(3);
});

test('chosen rows are deleted together after a confirmation naming how many', async () => {
  await filterBy('status', 'archived');
  await expect(status()).toHaveText('1–3 of 3 · page 1 of 1');
  await page.getByLabel('Select record t4').check();
  await expect(records().getByRole('group', { name: 'Chosen records' })).toContainText('1 record selected');
  // Ids with a comma and quotes, typed into the grid's in filter as the query language writes them.
  await page.getByLabel('Operator for id').selectOption('in');
  await filterBy('id', '"a,1", "say ""hi"""');
  await expect(status()).toHaveText('1–2 of 2 · page 1 of 1');
  // Another filter is another page: nothing is chosen on it yet.
  await expect(records().getByRole('group', { name: 'Chosen records' })).toHaveCount(0);
  await page.getByLabel('Select all records on this page').check();
  await expect(records().getByRole('group', { name: 'Chosen records' })).toContainText('2 records selected');
  await page.getByRole('button', { name: 'Delete selected' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete 2 records?' });
  await expect(dialog).toContainText('2 records are deleted from tasks');
  await dialog.getByRole('button', { name: 'Delete 2 records' }).click();
  await expect(dialog).toBeHidden();
  await expect(records().getByRole('status').filter({ hasText: 'Deleted' })).toHaveText('Deleted 2 records.');
  await expect(page.getByText('No records match these filters')).toBeVisible();
  expect(await total('status[eq]=archived')).toBe(1);
  expect(await total('id[eq]=t4')).toBe(1);
  expect(await total('count=exact')).toBe(155);
});
