/**
 * The baseline's files (issue 28, F1 and F2), as a hand-written node:http + pg server would serve them from a
 * directory (FILES_DIR), on its own copies of the buckets' tables (schema `bare`, no trigger):
 * - `GET /files/:table/:id`: one SELECT of the row (name, type, size, sha256, "updatedAt"), the file opened, then
 *   streamed with ETag `"<sha256>"`, Content-Length and Content-Type. The anon key checked (a string comparison),
 *   as Basalt asks anon for it; no range, no conditional request, no policy (the buckets are public-read).
 * - `POST /files/:table?name=`: the bearer token checked, the body piped to `<FILES_DIR>/<id>` through a transform
 *   that counts and hashes it (SHA-256, as Basalt does on the way), then one INSERT ... RETURNING *; 201 `{ data }`.
 *   No staging, no registry of stored objects, no limits.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { BARE, BUCKETS } from './scenarios.js';

const TABLES: readonly string[] = [BUCKETS.files, BUCKETS.transfers];

/** Counts and hashes the bytes going by. */
class Hasher extends Transform {
  size = 0;
  readonly hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    done(null, chunk);
  }
}

function answerJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * The handler of `/files/...` requests: true when it took the request (answered or answering), false for any other
 * path. `checks` are the baseline's own: the anon key's and the bearer token's (they throw an error carrying `status` 401).
 */
export function fileRoutes(
  pool: pg.Pool,
  directory: string,
  checks: { requireAnon(req: http.IncomingMessage): void; requireUser(req: http.IncomingMessage): string },
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const download = async (req: http.IncomingMessage, res: http.ServerResponse, table: string, id: string) => {
    checks.requireAnon(req);
    const { rows } = await pool.query<{ name: string; type: string; size: string; sha256: string; updatedAt: Date }>({
      name: `file ${table}`,
      text: `SELECT name, type, size, sha256, "updatedAt" FROM ${BARE}.${table} WHERE id = $1`,
      values: [id],
    });
    const row = rows[0];
    if (!row) return answerJson(res, 404, { error: { code: 404, message: 'row' } });
    const handle = await fs.promises.open(path.join(directory, id), 'r');
    res.writeHead(200, { etag: `"${row.sha256}"`, 'content-length': row.size, 'content-type': row.type });
    if (req.method === 'HEAD') {
      await handle.close();
      return void res.end();
    }
    await pipeline(handle.createReadStream(), res).catch((error: unknown) => {
      // A client that went away midway (the load stopping) is not an error, as in Basalt's serve.ts.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
    });
  };

  const upload = async (req: http.IncomingMessage, res: http.ServerResponse, table: string, url: URL) => {
    const userId = checks.requireUser(req);
    const id = randomBytes(16).toString('base64url');
    const file = path.join(directory, id);
    const hasher = new Hasher();
    try {
      await pipeline(req, hasher, fs.createWriteStream(file, { flags: 'wx' }));
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
    const { rows } = await pool.query({
      name: `upload ${table}`,
      text: `INSERT INTO ${BARE}.${table} (id, name, type, size, sha256, user_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      values: [id, url.searchParams.get('name') ?? 'file', req.headers['content-type'] ?? 'application/octet-stream', hasher.size, hasher.hash.digest('hex'), userId],
    });
    answerJson(res, 201, { data: rows[0] });
  };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://baseline');
    const [prefix, table = '', id, ...rest] = url.pathname.split('/').filter(Boolean);
    if (prefix !== 'files') return false;
    const handled =
      !directory || !TABLES.includes(table) || rest.length > 0
        ? Promise.resolve(answerJson(res, 404, { error: { code: 404, message: 'route' } }))
        : id !== undefined && (req.method === 'GET' || req.method === 'HEAD')
          ? download(req, res, table, decodeURIComponent(id))
          : id === undefined && req.method === 'POST'
            ? upload(req, res, table, url)
            : Promise.resolve(answerJson(res, 405, { error: { code: 405, message: 'method' } }));
    handled.catch((error: unknown) => {
      const status = (error as { status?: number }).status ?? ((error as NodeJS.ErrnoException).code === 'ENOENT' ? 404 : 500);
      if (status === 500) console.error(error);
      if (res.headersSent) res.destroy();
      else answerJson(res, status, { error: { code: status, message: status === 500 ? 'internal' : (error as Error).message } });
    });
    return true;
  };
}
