import { Readable } from 'node:stream';
import { READ_ONLY_KEY_REASON, SIGNED_LINK_PARAMETERS, TRANSFORM_PARAMETERS } from '@basalt/contract';
import type { TableSchema } from '../db/schema.js';
import { ApiError, invalidField, invalidParameter, notFound, unauthorized } from '../errors.js';
import type { Caller } from '../policies/caller.js';
import { isReadOnly } from '../policies/caller.js';
import { forbidden } from '../errors.js';
import type { FileRow, FileService } from './service.js';
import type { Served } from './bytes/serve.js';
import { LinkSigner, MAX_EXPIRES_IN_SECONDS } from './links/signedLinks.js';
import { parseTransform, variantName, type Transform } from './transform/parameters.js';
import { transformable, type ImageTransformer } from './transform/images.js';
import { fileKey, variantKey } from './storage/objects.js';

/**
 * What `GET /files/:table/:id` serves (API.md, Files): the row read as the caller (or through a signed link), the
 * original or a variant (made once, cached in storage, at most 20 per file, least recently used evicted), and how it
 * may be cached. The bytes themselves are bytes/serve.ts's.
 */
export const MAX_VARIANTS = 20;

/** How the request proves access: its credentials, or a signed link's expiry and signature. */
export type Proof = { caller: Caller; surface: 'api' | 'admin'; bare?: true } | { link: { expires: string; sig: string } };

export interface DownloadRequest {
  table: string;
  id: string;
  query: Record<string, unknown>;
}

export class Downloads {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly files: FileService,
    private readonly signer: LinkSigner,
    private readonly transformer: ImageTransformer,
    private readonly publicUrl: () => string | null,
  ) {}

  /** The query's parameters: transform parameters, and `expires` with `sig` on a signed link; anything else 400. */
  private parameters(query: Record<string, unknown>): { transformText: Record<string, string>; link: { expires: string; sig: string } | null } {
    const transformText: Record<string, string> = {};
    for (const [key, value] of Object.entries(query)) {
      const known = (TRANSFORM_PARAMETERS as readonly string[]).includes(key) || (SIGNED_LINK_PARAMETERS as readonly string[]).includes(key);
      if (!known) throw invalidParameter(key, `${key} is not a parameter of a file: it takes ${[...TRANSFORM_PARAMETERS, ...SIGNED_LINK_PARAMETERS].join(', ')}`);
      if (typeof value !== 'string') throw invalidParameter(key, `${key} must be given once`);
      if ((TRANSFORM_PARAMETERS as readonly string[]).includes(key)) transformText[key] = value;
    }
    const { expires, sig } = query as { expires?: string; sig?: string };
    if ((expires === undefined) !== (sig === undefined)) throw invalidParameter(expires === undefined ? 'expires' : 'sig', 'a signed link carries both expires and sig');
    return { transformText, link: expires !== undefined && sig !== undefined ? { expires, sig } : null };
  }

  /** What to serve: the row under the caller's access (or the link's proof), and the variant asked for. */
  async resolve(request: DownloadRequest, proof: Proof): Promise<{ served: Served; variant?: { transform: Transform; first: string; row: FileRow; table: TableSchema } }> {
    const { transformText, link } = this.parameters(request.query);
    const transform = parseTransform(transformText);
    const table = await this.files.bucket(request.table);
    let row: FileRow;
    let cacheControl: string;
    if (link) {
      const found = await this.files.anyRow(table, request.id);
      const left = found ? this.signer.verify({ table: table.name, id: request.id, sha256: found.sha256 }, link.expires, link.sig, transformText) : null;
      if (!found || left === null) throw new ApiError('FORBIDDEN', 'This link is not valid: it has expired, the file changed, or it was never signed', { reason: 'link' });
      row = found;
      cacheControl = `private, max-age=${left}`;
    } else {
      const { caller, surface, bare } = proof as Extract<Proof, { caller: Caller }>;
      // A request without credentials is anon only where anon reads every row (a plain URL, API.md "Client library").
      if (bare && !this.files.publicBucket(table)) throw unauthorized('Credentials are required: an Authorization bearer token or an apikey header (or a signed link)');
      row = await this.files.rowOf(caller, table.name, request.id, surface);
      cacheControl = surface === 'api' && this.files.publicBucket(table) ? 'public, max-age=0, must-revalidate' : 'private, max-age=0, must-revalidate';
    }
    const served: Served = { key: fileKey(table.name, row.id, row.sha256), size: Number(row.size), type: row.type, name: row.name, etag: `"${row.sha256}"`, lastModified: new Date(row.updatedAt), cacheControl };
    if (!transform) return { served };
    const first = TRANSFORM_PARAMETERS.find((name) => name in transformText)!;
    if (!transformable(row.type)) throw invalidParameter(first, `${Object.keys(transformText).join(', ')}: ${row.type} is not an image that can be transformed`);
    return { served, variant: { transform, first, row, table } };
  }

  /** A variant from storage, or made now (one of a bounded number at once) and kept. */
  async variant(served: Served, variant: { transform: Transform; first: string; row: FileRow; table: TableSchema }): Promise<Served & { bytes?: Buffer }> {
    const { row, table, transform } = variant;
    const name = variantName(transform);
    const key = variantKey(table.name, row.id, row.sha256, name);
    const registry = this.files.registry;
    const known = await registry.variant(key);
    if (known) {
      this.touch(key);
      return { ...served, key, size: known.size, type: known.type, etag: `"${row.sha256}-${name}"` };
    }
    const source = await registry.store.get(served.key);
    if (!source) throw notFound("The file's bytes are missing from storage");
    const made = await this.transformer.transform(source, row.type, transform, variant.first);
    await registry.register({ key, table: table.name, recordId: row.id, sha256: row.sha256, variant: `${name} ${made.type}`, size: made.bytes.length });
    await registry.store.put(key, Readable.from([made.bytes]));
    await registry.evictVariants(table.name, row.id, MAX_VARIANTS);
    return { ...served, key, size: made.bytes.length, type: made.type, etag: `"${row.sha256}-${name}"`, bytes: made.bytes };
  }

  /** A variant's last use, written at most once a minute per process. */
  private touch(key: string): void {
    const now = Date.now();
    if ((this.touched.get(key) ?? 0) > now - 60_000) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(key, now);
    void this.files.registry.touch(key).catch(() => undefined);
  }

  /** `POST /files/:table/:id/sign`: `{ url }` valid for `expiresIn` seconds, for the caller who may read the file. */
  async sign(caller: Caller, tableName: string, id: string, body: Record<string, unknown>): Promise<{ url: string; expiresAt: string }> {
    const table = await this.files.bucket(tableName);
    if (isReadOnly(caller)) throw forbidden(`The API key is read-only: it may not sign links to ${tableName}`, { table: tableName, policy: table.effectivePolicy, operation: 'write', reason: READ_ONLY_KEY_REASON });
    for (const key of Object.keys(body)) if (key !== 'expiresIn' && key !== 'transform') throw invalidField(key, `${key} is not a field of a signing request: it takes expiresIn and transform`);
    const { expiresIn } = body;
    if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN_SECONDS) {
      throw invalidField('expiresIn', `expiresIn must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN_SECONDS} (7 days)`);
    }
    const transformText: Record<string, string> = {};
    if (body.transform !== undefined) {
      if (body.transform === null || typeof body.transform !== 'object' || Array.isArray(body.transform)) throw invalidField('transform', 'transform must be an object of width, height, fit, format, quality');
      for (const [key, value] of Object.entries(body.transform)) {
        if (!(TRANSFORM_PARAMETERS as readonly string[]).includes(key)) throw invalidField(`transform.${key}`, `${key} is not a transform parameter`);
        if (typeof value !== 'string' && typeof value !== 'number') throw invalidField(`transform.${key}`, `${key} must be a number or a word`);
        transformText[key] = String(value);
      }
      try {
        parseTransform(transformText);
      } catch (error) {
        const parameter = (error as ApiError).details?.parameter;
        throw typeof parameter === 'string' ? invalidField(`transform.${parameter}`, (error as ApiError).message) : error;
      }
    }
    const base = this.publicUrl();
    if (base === null) throw new ApiError('UNAVAILABLE', 'Signed links need PUBLIC_URL: set it to the URL this service is reached at');
    const row = await this.files.row(caller, tableName, id);
    if (Object.keys(transformText).length > 0 && !transformable(row.type)) throw invalidField('transform', `${row.type} is not an image that can be transformed`);
    const query = this.signer.sign({ table: tableName, id: row.id, sha256: row.sha256 }, expiresIn, transformText);
    const expiresAt = new Date(Number(query.get('expires')) * 1000).toISOString();
    return { url: `${base}/files/${encodeURIComponent(tableName)}/${encodeURIComponent(row.id)}?${query.toString()}`, expiresAt };
  }
}
