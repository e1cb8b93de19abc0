/**
 * Files (issue 28): three public-read buckets made through the admin API as the owner (local driver, STORAGE_URL in
 * the bench's temporary folder), filled and checked before the load.
 * - F1 `GET /files/public_files/:id`, a random one of 100 files of 10 KiB (random bytes), as anon (the anon key). The
 *   baseline (bench/baselineFiles.ts) serves the same ids from its own copy of the table and the same bytes from a
 *   folder of its own: one SELECT, then the file streamed. Target >= 0.7 x baseline.
 * - F2 (bench/fileTransfers.ts) 20 uploads of 100 MiB at once, then their downloads; >= 0.8 x the baseline's
 *   throughput, and no Basalt process grows by 64 MiB or more.
 * - F3 `GET /files/photos/:id?width=200&format=webp`, a variant already made and cached, on the Basalt servers only;
 *   target >= 0.7 x Basalt's own F1 on the same server, same round. The photo is a 12-megapixel JPEG (4000 x 3000)
 *   made here with sharp from gradients, waves and noise (about 3 MB at quality 90, like a camera's); before the load
 *   each Basalt server makes the variant of copies of its own, one after another, each timed from request to last
 *   byte (the first transform, reported), then answers it again from the cache (checked: a WebP 208 px wide, as
 *   Basalt rounds sides up to a multiple of 16, the same bytes).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { SIDE_STEP } from '../server/src/files/transform/parameters.js';
import type { Bench } from './measure.js';
import { onServer } from './processes.js';
import { anon, BARE, BUCKETS, expectStatus, F1_BYTES, F1_FILES, PHOTO, VARIANT_QUERY, type Scenario } from './scenarios.js';
import { BASALTS, F1, F2, F3, SERVERS, type FilesMeta, type RunRecord, type ServerName } from './stats.js';
import { clearTransfers, F2_PLAN, MemoryWatch, MiB, Payloads, roundTrip, SMOKE_F2_PLAN, transferRounds } from './fileTransfers.js';

const PHOTOS_PER_SERVER = 3;
/** The width F3's variant has: 200 asked, rounded up as Basalt rounds every side (to a multiple of 16). */
export const VARIANT_WIDTH = Math.ceil(200 / SIDE_STEP) * SIDE_STEP;

export interface FilesPart {
  /** F1 and F3 as selected, for the rounds (F3 on the Basalt servers only). */
  scenarios: Scenario[];
  /** F2's runs of a round, when selected. */
  transfers?: (order: ServerName[], round: number) => Promise<RunRecord[]>;
  meta: FilesMeta;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** A 12-megapixel JPEG that compresses like a photo: colour gradients, waves across them, and per-pixel noise. */
export async function makePhoto(): Promise<Buffer> {
  const { width, height } = PHOTO;
  const raw = Buffer.allocUnsafe(width * height * 3);
  let state = 0x9e3779b9;
  const noise = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (((state >>> 0) & 0xff) / 255 - 0.5) * 32;
  };
  const clamp = (value: number) => Math.max(0, Math.min(255, value));
  let at = 0;
  for (let y = 0; y < height; y++) {
    const v = y / height;
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const wave = 40 * Math.sin(u * 18 + Math.sin(v * 7) * 3);
      raw[at++] = clamp(60 + 150 * u + wave + noise());
      raw[at++] = clamp(40 + 170 * v + noise());
      raw[at++] = clamp(200 - 120 * u * v - wave + noise());
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** A download as anon: Basalt asks anon for the anon key (the apikey header) on /files as on /api, public bucket or not. */
async function get(url: string, anonKey: string): Promise<{ status: number; headers: Headers; bytes: Buffer; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { apikey: anonKey } });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, ms: performance.now() - started };
}

async function call(url: string, token: string, method: string, route: string, body: Buffer | string, type: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const json = (await response.json()) as { data?: Record<string, unknown> };
  if (!response.ok || !json.data) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

const upload = async (url: string, token: string, bucket: string, name: string, bytes: Buffer, type: string) =>
  (await call(url, token, 'POST', `/files/${bucket}?name=${encodeURIComponent(name)}`, bytes, type)).id as string;

function fail(bench: Bench, server: ServerName, scenario: string, problem: string): void {
  const detail = `${scenario} on ${server}: ${problem}`;
  bench.failedChecks.set(`${server} ${scenario}`, detail);
  bench.problems.push(`check failed: ${detail}`);
  console.error(`!!! CHECK FAILED: ${detail}`);
}

/** The baseline's copies: its own tables in `bare` (same columns, keys and indexes, no trigger), F1's rows and bytes. */
async function mirror(bench: Bench, ids: string[], contents: Buffer[], directory: string): Promise<void> {
  await onServer(bench.db.url, async (client) => {
    for (const table of [BUCKETS.files, BUCKETS.transfers]) {
      await client.query(`DROP TABLE IF EXISTS ${BARE}.${table}`);
      await client.query(`CREATE TABLE ${BARE}.${table} (LIKE public.${table} INCLUDING ALL)`);
    }
    await client.query(`INSERT INTO ${BARE}.${BUCKETS.files} SELECT * FROM public.${BUCKETS.files}`);
    await client.query(`VACUUM ANALYZE public.${BUCKETS.files}, ${BARE}.${BUCKETS.files}`);
  });
  ids.forEach((id, i) => fs.writeFileSync(path.join(directory, id), contents[i]!));
}

/** F1 on every server: the bytes uploaded, with their ETag, length and type. */
async function checkF1(bench: Bench, ids: string[], contents: Buffer[], type: string): Promise<void> {
  for (const server of SERVERS) {
    for (const i of [0, 1, ids.length - 1]) {
      const got = await get(`${bench.servers[server].url}/files/${BUCKETS.files}/${ids[i]}`, bench.project.anonKey);
      const wanted: Array<[string, string | null, string]> = [
        ['ETag', got.headers.get('etag'), `"${sha256(contents[i]!)}"`],
        ['Content-Length', got.headers.get('content-length'), String(F1_BYTES)],
        ['Content-Type', got.headers.get('content-type'), type],
      ];
      const problem = expectStatus(got.status, 200) ?? (got.bytes.equals(contents[i]!) ? null : `${got.bytes.length} other bytes`) ?? wanted.filter(([, is, should]) => is !== should).map(([name, is, should]) => `${name} ${is}, expected ${should}`).join('; ');
      if (problem) {
        fail(bench, server, F1, problem);
        break;
      }
    }
  }
}

/** Each Basalt server makes the variant of its own copies, one after another (timed), then serves them cached. */
async function firstTransforms(bench: Bench, photoIds: Record<string, string[]>, meta: FilesMeta): Promise<void> {
  for (const server of BASALTS) {
    const url = (id: string) => `${bench.servers[server].url}/files/${BUCKETS.photos}/${id}?${VARIANT_QUERY}`;
    const memory = new MemoryWatch(bench.servers[server].pid);
    const first = [];
    for (const id of photoIds[server]!) first.push(await get(url(id), bench.project.anonKey));
    meta.transformRssGrowthMiB[server] = memory.stop().rssPeakGrowthMiB;
    const cached = [];
    for (const id of photoIds[server]!) cached.push(await get(url(id), bench.project.anonKey));
    meta.firstTransformMs[server] = first.map((answer) => answer.ms);
    meta.cachedMs[server] = cached.map((answer) => answer.ms);
    for (const [i, answer] of cached.entries()) {
      const image = await sharp(answer.bytes).metadata().catch(() => null);
      if (image?.width && image.height) meta.variant ??= { width: image.width, height: image.height, bytes: answer.bytes.length };
      const problem =
        expectStatus(first[i]!.status, 200) ??
        expectStatus(answer.status, 200) ??
        (answer.headers.get('content-type') !== 'image/webp' ? `Content-Type ${answer.headers.get('content-type')}` : null) ??
        (image?.format !== 'webp' || image.width !== VARIANT_WIDTH ? `not a WebP ${VARIANT_WIDTH} px wide (${image?.format} ${image?.width} x ${image?.height})` : null) ??
        (answer.bytes.equals(first[i]!.bytes) ? null : 'the cached variant differs from the one made');
      if (problem) {
        fail(bench, server, F3, problem);
        break;
      }
    }
  }
}

/**
 * The buckets, their files and photos, the baseline's copies, every server checked (F2 with a small round trip whose
 * downloads are hashed), and the scenarios `only` selects (null: all).
 */
export async function prepareFiles(bench: Bench, only: string[] | null, dirs: { baseline: string }): Promise<FilesPart> {
  const started = Date.now();
  const selected = (name: string) => only === null || only.includes(name);
  const [url, token] = [bench.servers['basalt-1'].url, bench.project.ownerToken];
  for (const [name, extra] of [[BUCKETS.files, {}], [BUCKETS.photos, {}], [BUCKETS.transfers, { maxFileSize: 200 * MiB }]] as const) {
    await call(url, token, 'POST', '/admin/tables', JSON.stringify({ name, kind: 'files', policy: 'public-read', ...extra }), 'application/json');
  }
  const contents = Array.from({ length: F1_FILES }, () => randomBytes(F1_BYTES));
  const ids: string[] = [];
  for (let i = 0; i < F1_FILES; i += 10) ids.push(...(await Promise.all(contents.slice(i, i + 10).map((bytes, j) => upload(url, token, BUCKETS.files, `file-${i + j}.bin`, bytes, 'application/octet-stream')))));
  await mirror(bench, ids, contents, dirs.baseline);
  const type = (await onServer(bench.db.url, (client) => client.query<{ type: string }>(`SELECT type FROM ${BUCKETS.files} LIMIT 1`))).rows[0]!.type;
  await checkF1(bench, ids, contents, type);

  const photo = await makePhoto();
  const meta: FilesMeta = { photo: { ...PHOTO, bytes: photo.length }, firstTransformMs: {}, cachedMs: {}, transformRssGrowthMiB: {} };
  const photoIds: Record<string, string[]> = {};
  for (const server of BASALTS) {
    photoIds[server] = [];
    for (let i = 0; i < (bench.options.smoke ? 1 : PHOTOS_PER_SERVER); i++) photoIds[server].push(await upload(bench.servers[server].url, token, BUCKETS.photos, `photo-${server}-${i}.jpg`, photo, 'image/jpeg'));
  }
  await firstTransforms(bench, photoIds, meta);

  let transfers: FilesPart['transfers'];
  if (selected(F2)) {
    const check = new Payloads({ files: 2, bytes: 3 * MiB });
    for (const server of SERVERS) {
      const run = await roundTrip(bench.servers[server].url, bench.project, check, bench.servers[server].pid, true);
      await clearTransfers(bench, server, run.ids, dirs.baseline);
      if (run.problems?.length) fail(bench, server, F2, run.problems.join('; '));
    }
    const hashing = Date.now();
    const payloads = new Payloads(bench.options.smoke ? SMOKE_F2_PLAN : F2_PLAN);
    console.log(`F2: ${payloads.plan.files} bodies of ${payloads.plan.bytes / MiB} MiB hashed in ${((Date.now() - hashing) / 1000).toFixed(1)} s`);
    transfers = transferRounds(bench, payloads, dirs.baseline);
  }
  const photoList = BASALTS.flatMap((server) => photoIds[server]!);
  const scenarios: Scenario[] = [
    { name: 'F1', title: `a ${F1_BYTES / 1024} KiB file of a public bucket`, next: (project) => ({ method: 'GET', path: `/files/${BUCKETS.files}/${pick(ids)}`, headers: anon(project) }), check: (_p, _r, status) => expectStatus(status, 200) },
    { name: 'F3', title: 'a cached 200 px WebP variant of a 12-megapixel JPEG', basaltOnly: true, next: (project) => ({ method: 'GET', path: `/files/${BUCKETS.photos}/${pick(photoList)}?${VARIANT_QUERY}`, headers: anon(project) }), check: (_p, _r, status) => expectStatus(status, 200) },
  ];
  const transformed = BASALTS.map((server) => `${server} ${(meta.firstTransformMs[server] ?? []).map((ms) => ms.toFixed(0)).join(', ')} ms`).join('; ');
  console.log(`files: 3 buckets, ${F1_FILES} files of ${F1_BYTES / 1024} KiB, a ${(photo.length / MiB).toFixed(1)} MiB photo; first transforms ${transformed}; ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { scenarios: scenarios.filter((scenario) => selected(scenario.name)), ...(transfers ? { transfers } : {}), meta };
}
