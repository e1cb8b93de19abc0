import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import type { SpawnedServer } from '../test-support/server.js';
import { OWNER_EMAIL, horizontalOverflow, http, screenshot, signInAsOwner, signUp, startServer, watchCsp, type Account } from './support.js';

/**
 * A bucket in the console (issue 28): made from New table with its largest file and its types, files uploaded by
 * choosing them (keyboard) and by dropping them, with their progress, refused with the reason, shown as thumbnails,
 * previewed, downloaded and deleted; the bucket's rules in the rule editor; the page at 390 px. One server, one page,
 * steps in order.
 */
let server: SpawnedServer;
let owner: Account;
let page: Page;
let storage: string;
let csp: string[];

test.describe.configure({ mode: 'serial' });

/** A PNG of noise (it does not compress): `width` × `height` RGB, so its size is about 3 bytes a pixel. */
function noisePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = randomBytes((width * 3 + 1) * height);
  // Each row starts with its filter byte (0: none); the rest is noise.
  for (let row = 0; row < height; row++) rows[row * (width * 3 + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const noise = noisePng(240, 240);

test.beforeAll(async ({ browser }) => {
  storage = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-e2e-files-'));
  server = await startServer({ env: { STORAGE_URL: `file://${storage}` } });
  owner = await signUp(server, OWNER_EMAIL);
  page = await browser.newPage();
  csp = watchCsp(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInAsOwner(page, server);
});

test.afterAll(async () => {
  await page?.close();
  await server?.stop();
  if (storage) fs.rmSync(storage, { recursive: true, force: true });
});

const filesPanel = () => page.getByRole('region', { name: 'Files' });
const fileList = () => page.getByRole('list', { name: 'Files of photos' });
const fileItem = (name: string) => fileList().getByRole('listitem').filter({ has: page.getByText(name, { exact: true }) });
const uploads = () => page.getByRole('list', { name: 'Uploads' });
const uploadRow = (name: string) => uploads().getByRole('listitem').filter({ hasText: name });

interface FileRow {
  id: string;
  name: string;
  type: string;
  size: number;
}

async function rowsOverHttp(): Promise<FileRow[]> {
  const answer = await http(server, 'GET', '/admin/tables/photos/records?order=name.asc', { token: owner.accessToken });
  expect(answer.status).toBe(200);
  return answer.body.data as FileRow[];
}

test('New table makes a bucket with its largest file, its types and a metadata column', async () => {
  await page.getByRole('button', { name: 'New table' }).click();
  const form = page.getByRole('form', { name: 'New table' });
  await form.getByRole('radio', { name: 'Files (bucket)' }).check();
  await expect(form.getByRole('heading', { name: 'Metadata columns' })).toBeVisible();
  // The empty column row a table starts with is not needed by a bucket.
  await expect(form.getByRole('group', { name: 'Column 1' })).toHaveCount(0);
  await expect(form.getByLabel('Policy', { exact: true })).toContainText('Automatic (owner-scoped)');

  await form.getByLabel('Table name', { exact: true }).fill('photos');
  await form.getByLabel('Largest file', { exact: true }).fill('0');
  await form.getByLabel('Allowed types', { exact: true }).fill('image, text/plain');
  await form.getByRole('button', { name: 'Add a column' }).click();
  await form.getByRole('group', { name: 'Column 1' }).getByLabel('Name', { exact: true }).fill('size');
  await form.getByRole('button', { name: 'Create bucket' }).click();
  // Pointed at in the browser, each on its field, before anything is sent.
  await expect(form.getByLabel('Largest file', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByText('A bucket takes files of at least 1 byte.')).toBeVisible();
  await expect(form.getByText('image is not a type: write type/subtype')).toBeVisible();
  await expect(form.getByText('size is a file column every bucket has.')).toBeVisible();

  await form.getByLabel('Largest file', { exact: true }).fill('200');
  await form.getByLabel('Unit of the largest file').selectOption('KB');
  await form.getByLabel('Allowed types', { exact: true }).fill('image/*, text/plain');
  await form.getByRole('group', { name: 'Column 1' }).getByLabel('Name', { exact: true }).fill('caption');
  await form.getByRole('button', { name: 'Create bucket' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'photos' })).toBeVisible();
  await expect(page.locator('.page-meta .badge-bucket')).toHaveText('bucket');
  await expect(filesPanel()).toContainText('image/*, text/plain, up to 200 KB each.');
  await expect(filesPanel().getByText('No files yet')).toBeVisible();
  // A bucket's rows come from uploads: the records grid offers no New record.
  await expect(page.getByRole('region', { name: 'Records' }).getByRole('button', { name: 'New record' })).toHaveCount(0);

  const table = await http(server, 'GET', '/admin/tables/photos', { token: owner.accessToken });
  expect(table.body.data).toMatchObject({ kind: 'files', policy: 'owner-scoped', bucket: { maxFileSize: 200 * 1024, allowedTypes: ['image/*', 'text/plain'] } });
  expect((table.body.data as { columns: Array<{ name: string }> }).columns.map((column) => column.name)).toContain('caption');
});

test('files are uploaded by choosing them or dropping them, with their progress, or refused with the reason', async () => {
  // Uploads at 64 KB/s: the noise PNG takes a couple of seconds, long enough to watch its progress.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });

  // One is cancelled while it is being sent: nothing of it is kept.
  const first = page.waitForEvent('filechooser');
  await filesPanel().getByRole('button', { name: 'Choose files' }).click();
  await (await first).setFiles({ name: 'cancelled.png', mimeType: 'image/png', buffer: noise });
  await expect(uploadRow('cancelled.png')).toContainText(/[1-9]\d?% of 169 KB/);
  await uploadRow('cancelled.png').getByRole('button', { name: 'Cancel upload of cancelled.png' }).click();
  await expect(uploadRow('cancelled.png')).toContainText('Cancelled');
  await expect(uploadRow('cancelled.png').getByRole('progressbar')).toHaveCount(0);

  // By keyboard: the zone's button opens the file picker.
  await filesPanel().getByRole('button', { name: 'Choose files' }).focus();
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Enter');
  await (await chooser).setFiles({ name: 'noise.png', mimeType: 'image/png', buffer: noise });
  const bar = uploadRow('noise.png').getByRole('progressbar', { name: 'Upload of noise.png' });
  await expect(bar).toBeVisible();
  // Part of the way there, and saying so.
  await expect(uploadRow('noise.png')).toContainText(/[1-9]\d?% of 169 KB/);
  await expect(uploadRow('noise.png')).toContainText('Uploaded, 169 KB', { timeout: 20_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await cdp.detach();

  // The new file is listed with a thumbnail: a small webp variant, fetched with the owner's token.
  await expect(fileItem('noise.png')).toContainText('image/png · 169 KB');
  const thumbnail = fileItem('noise.png').locator('img.file-thumb');
  await expect(thumbnail).toHaveAttribute('src', /^data:image\/webp;base64,/);
  expect(await thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(128);

  // Dropped onto the zone: the zone says it will take them, then they go.
  const zone = filesPanel().getByRole('group', { name: 'Upload files to photos' });
  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(['hello from a drop\n'], 'notes.txt', { type: 'text/plain' }));
    transfer.items.add(new File(['{"a": 1}'], 'data.json', { type: 'application/json' }));
    transfer.items.add(new File([new Uint8Array(300 * 1024)], 'huge.png', { type: 'image/png' }));
    return transfer;
  });
  await zone.dispatchEvent('dragenter', { dataTransfer: dropped });
  await expect(zone).toContainText('Drop to upload');
  await zone.dispatchEvent('drop', { dataTransfer: dropped });
  await expect(zone).toContainText('Drop files here');
  await expect(uploadRow('notes.txt')).toContainText('Uploaded, 18 bytes');
  // The server's refusal, in its words; a file over the size is refused before a byte is sent.
  await expect(uploadRow('data.json')).toContainText('photos accepts image/*, text/plain; this file is application/json');
  await expect(uploadRow('huge.png')).toContainText('huge.png is 300 KB; photos takes files of at most 200 KB.');
  await expect(filesPanel().getByRole('status').filter({ hasText: 'uploaded' })).toHaveText('2 uploaded, 2 failed');
  await expect(fileItem('notes.txt')).toContainText('text/plain · 18 bytes');

  await filesPanel().getByRole('button', { name: 'Clear finished' }).click();
  await expect(uploads()).toHaveCount(0);
  expect((await rowsOverHttp()).map((row) => row.name)).toEqual(['noise.png', 'notes.txt']);
  await screenshot(page, 'bucket');
});

test('a file is previewed and downloaded', async () => {
  await fileItem('noise.png').getByRole('button', { name: 'Preview noise.png' }).click();
  const preview = page.getByRole('dialog', { name: 'noise.png' });
  const image = preview.getByRole('img', { name: 'Preview of noise.png' });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBeGreaterThan(0);
  await expect(preview).toContainText('image/png · 169 KB');

  const download = page.waitForEvent('download');
  await preview.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('noise.png');
  expect(fs.readFileSync(await file.path()).equals(noise)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(preview).toBeHidden();

  await fileItem('notes.txt').getByRole('button', { name: 'Preview notes.txt' }).click();
  const text = page.getByRole('dialog', { name: 'notes.txt' });
  await expect(text.getByLabel('Contents of notes.txt')).toHaveText('hello from a drop');
  await text.getByRole('button', { name: 'Close' }).click();
  await expect(text).toBeHidden();

  // From the list too, without opening it.
  const again = page.waitForEvent('download');
  await fileItem('notes.txt').getByRole('button', { name: 'Download notes.txt' }).click();
  expect(fs.readFileSync(await (await again).path(), 'utf8')).toBe('hello from a drop\n');
});

test("a file's metadata is edited in the records grid, what its upload found is not", async () => {
  const noiseRow = (await rowsOverHttp()).find((row) => row.name === 'noise.png')!;
  await page.getByRole('button', { name: `Edit record ${noiseRow.id}` }).click();
  const form = page.getByRole('form', { name: `Edit record ${noiseRow.id}` });
  for (const column of ['type', 'size', 'sha256']) await expect(form.getByLabel(column, { exact: true })).toHaveAttribute('readonly', '');
  await expect(form.getByLabel('name', { exact: true })).toBeEditable();
  await form.getByLabel('caption', { exact: true }).fill('A square of noise');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form).toBeHidden();
  const saved = await http(server, 'GET', `/admin/tables/photos/records/${noiseRow.id}`, { token: owner.accessToken });
  expect(saved.body.data).toMatchObject({ name: 'noise.png', caption: 'A square of noise', size: noise.length, type: 'image/png' });
});

test('a file is deleted once confirmed, its bytes with it', async () => {
  const notes = (await rowsOverHttp()).find((row) => row.name === 'notes.txt')!;
  await fileItem('notes.txt').getByRole('button', { name: 'Delete notes.txt' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete notes.txt?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(fileItem('notes.txt')).toBeVisible();

  await fileItem('notes.txt').getByRole('button', { name: 'Delete notes.txt' }).click();
  await dialog.getByRole('button', { name: 'Delete file' }).click();
  await expect(dialog).toBeHidden();
  await expect(fileItem('notes.txt')).toHaveCount(0);
  await expect(fileItem('noise.png')).toBeVisible();
  expect((await rowsOverHttp()).map((row) => row.name)).toEqual(['noise.png']);
  const bytes = await fetch(`${server.url}/admin/tables/photos/files/${notes.id}`, { headers: { authorization: `Bearer ${owner.accessToken}` } });
  expect(bytes.status).toBe(404);
});

test("the bucket's rules are written in the rule editor and decide uploads", async () => {
  const policy = page.getByRole('region', { name: 'Policy' });
  await policy.getByRole('radio', { name: /^rules/ }).check();
  const editor = page.getByRole('form', { name: 'Rules of photos' });
  await expect(editor).toContainText('photos is a bucket: its rules decide who uploads (create)');
  await expect(editor.getByText('Checked on the uploaded file’s row')).toBeVisible();
  const create = editor.getByLabel('create', { exact: true });
  await create.fill("user_id = @auth.id and type like 'text/*' and sizes < 100");
  await expect(editor.getByText('photos has no column sizes')).toBeVisible();
  await create.fill("user_id = @auth.id and type like 'text/*' and size < 100");
  await expect(create).toHaveAttribute('aria-invalid', 'false');
  await editor.getByRole('button', { name: 'Switch to rules' }).click();
  await page.getByRole('dialog', { name: 'Apply these rules to photos?' }).getByRole('button', { name: 'Apply rules' }).click();
  await expect(policy.getByText('Saved, in effect now')).toBeVisible();

  // A member's uploads meet the rule; the one it allows shows up in the owner's list as it happens.
  const member = await signUp(server, 'member@example.test');
  const upload = (name: string, type: string, body: string) =>
    fetch(`${server.url}/files/photos?name=${name}`, { method: 'POST', headers: { authorization: `Bearer ${member.accessToken}`, 'content-type': type }, body });
  expect((await upload('big.txt', 'text/plain', 'x'.repeat(200))).status).toBe(403);
  expect((await upload('member.txt', 'text/plain', 'from a member')).status).toBe(201);
  await expect(fileItem('member.txt')).toBeVisible();
});

test('the bucket page fits a phone, its preview too', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(fileItem('noise.png')).toBeVisible();
  await expect(fileItem('noise.png').locator('img.file-thumb')).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await screenshot(page, 'bucket');
  await fileItem('noise.png').getByRole('button', { name: 'Preview noise.png' }).click();
  await expect(page.getByRole('img', { name: 'Preview of noise.png' })).toBeVisible();
  expect(await horizontalOverflow(page)).toEqual([]);
  await page.keyboard.press('Escape');
  expect(csp).toEqual([]);
});
