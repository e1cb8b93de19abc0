import { Router, type Request, type RequestHandler, type Response } from 'express';
import { decodePathSegment } from '../records/index.js';
import { APIKEY_HEADER, UPLOADS_SEGMENT } from '@basalt/contract';
import { resolveCaller } from '../auth/credentials.js';
import type { KeyService } from '../auth/keys/service.js';
import type { TokenService } from '../auth/tokens.js';
import { originOf } from '../auth/origin.js';
import { jsonObjectReader } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { invalidParameter } from '../errors.js';
import { ANON, type Caller } from '../policies/caller.js';
import { readMultipart } from './bytes/multipart.js';
import { sendFile } from './bytes/serve.js';
import type { Downloads, Proof } from './download.js';
import type { FileService, UploadInput } from './service.js';

/**
 * `/files` (API.md, Files): uploads, downloads, replacements and signed links. Credentials in headers only, as on
 * `/api`; the decisions are the record pipeline's (files/service.ts). Exempt from the JSON content-type rule: a body
 * is the file itself, or multipart/form-data.
 */
export interface FileRouteDeps {
  files: FileService;
  downloads: Downloads;
  tokens: TokenService;
  keys: KeyService;
  bodyLimitBytes: number;
  /** The resumable uploads' handler (tus, files/tus/), mounted at `/files/:table/uploads`. */
  uploads?: RequestHandler;
}

async function callerOf(req: Request, deps: FileRouteDeps): Promise<Caller> {
  const resolved = resolveCaller(req, deps.tokens, deps.keys);
  return (req.caller = resolved instanceof Promise ? await resolved : resolved);
}

/** The upload's bytes and fields: a raw body (fields in the query) or multipart/form-data (fields in the form). */
async function uploadInput(req: Request): Promise<UploadInput> {
  const address = originOf(req).address;
  const query = Object.fromEntries(Object.entries(req.query).map(([key, value]) => [key, typeof value === 'string' ? value : String(value)]));
  const repeated = Object.entries(req.query).find(([, value]) => typeof value !== 'string');
  if (req.is('multipart/form-data')) {
    const upload = await readMultipart(req);
    return { body: upload.file, hint: upload.mimeType ?? null, ...(upload.filename ? { filename: upload.filename } : {}), fields: async () => ({ ...query, ...(await upload.fields) }), address };
  }
  const length = req.headers['content-length'];
  return {
    body: req,
    hint: req.headers['content-type'] ?? null,
    ...(length !== undefined && /^[0-9]{1,16}$/.test(length) ? { declaredLength: Number(length) } : {}),
    fields: async () => {
      if (repeated) throw invalidParameter(repeated[0], `${repeated[0]} must be given once`);
      return query;
    },
    address,
  };
}

/** A failed upload whose body is still coming: the connection closes after the answer rather than reading it all. */
async function closingOnError<T>(req: Request, res: Response, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!req.complete) res.setHeader('Connection', 'close');
    throw error;
  }
}

async function download(deps: FileRouteDeps, req: Request, res: Response, proof: Proof, table: string, id: string): Promise<void> {
  const { served, variant } = await deps.downloads.resolve({ table, id, query: req.query as Record<string, unknown> }, proof);
  const answer = variant ? await deps.downloads.variant(served, variant) : served;
  await sendFile(deps.files.registry.store, req, res, answer);
}

/** `/<table>/<id>` (a trailing slash too, as Express's routes take it): a file's GET or HEAD, read without the router. */
const FILE_PATH = /^\/([^/]+)\/([^/]+)\/?$/;

/**
 * A file's download, the hot path (bench F1): answered before Express's router, as `/api` is (its matching and
 * parameter decoding showed in every read's profile, docs/performance.md); every other /files route goes on to it.
 */
function downloadFirst(deps: FileRouteDeps, router: Router): RequestHandler {
  return async (req, res, next) => {
    const match = req.method === 'GET' || req.method === 'HEAD' ? FILE_PATH.exec(req.path) : null;
    if (!match || match[2] === UPLOADS_SEGMENT) {
      router(req, res, next);
      return;
    }
    await answerDownload(deps, req, res, decodePathSegment(match[1]!), decodePathSegment(match[2]!));
  };
}

async function answerDownload(deps: FileRouteDeps, req: Request, res: Response, table: string, id: string): Promise<void> {
  const signed = req.query.sig !== undefined || req.query.expires !== undefined;
  // No credentials at all (an <img src>, a shared URL): anon for a bucket anon reads whole, else the 401 of /api.
  const bare = req.headers.authorization === undefined && req.headers[APIKEY_HEADER] === undefined;
  // A signed link is its own proof: credentials sent with it are not asked.
  const proof: Proof = signed ? { link: { expires: String(req.query.expires), sig: String(req.query.sig) } } : bare ? { caller: ANON, surface: 'api', bare: true } : { caller: await callerOf(req, deps), surface: 'api' };
  await download(deps, req, res, proof, table, id);
}

export function fileRoutes(deps: FileRouteDeps): RequestHandler {
  const router = Router();
  const readObject = jsonObjectReader(deps.bodyLimitBytes);
  const { uploads } = deps;
  // tus (files/tus/): the caller first, as on every /files route (401 in the envelope before tus reads anything).
  if (uploads) {
    router.use(`/:table/${UPLOADS_SEGMENT}`, async (req, res, next) => {
      await callerOf(req, deps);
      await uploads(req, res, next);
    });
  }

  router.post('/:table', async (req, res) => {
    const caller = await callerOf(req, deps);
    const answer = await closingOnError(req, res, async () => deps.files.upload(caller, String(req.params.table), await uploadInput(req)));
    sendJson(res, answer.status, answer.body);
  });

  router.put('/:table/:id', async (req, res) => {
    const caller = await callerOf(req, deps);
    const answer = await closingOnError(req, res, async () => deps.files.replace(caller, String(req.params.table), String(req.params.id), await uploadInput(req)));
    sendJson(res, answer.status, answer.body);
  });

  router.post('/:table/:id/sign', async (req, res) => {
    const caller = await callerOf(req, deps);
    const body = await readObject(req, res);
    sendJson(res, 200, { data: await deps.downloads.sign(caller, String(req.params.table), String(req.params.id), body) });
  });

  // GET and HEAD are downloadFirst's (sendFile writes no body for HEAD).
  return downloadFirst(deps, router);
}

/** `GET /admin/tables/:name/files/:id`: the owner's console reads any file's bytes (no policy; owner only). */
export function adminFileRoute(deps: FileRouteDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(req, deps);
    await download(deps, req, res, { caller, surface: 'admin' }, String(req.params.name), String(req.params.id));
  };
}
