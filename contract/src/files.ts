/**
 * Files (API.md, "Files: a bucket is a table whose rows are files"): the words server, client and console share.
 * A bucket is a table of `kind: "files"`; its file columns are set by uploads alone (`readOnly`).
 */

/** The columns every bucket has besides id, createdAt and updatedAt, set by the server from the bytes and the caller. */
export const FILE_COLUMNS = ['name', 'type', 'size', 'sha256', 'user_id'] as const;
export type FileColumn = (typeof FILE_COLUMNS)[number];

export const TABLE_KINDS = ['records', 'files'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

/** `maxFileSize` when a bucket is created without one: 50 MiB. */
export const DEFAULT_MAX_FILE_SIZE = 50 * 1024 * 1024;
/** A bucket's `maxFileSize` may be at most 5 GiB (one S3 copy, and a sane bound for a request). */
export const MAX_FILE_SIZE_LIMIT = 5 * 1024 * 1024 * 1024;

/** A bucket's settings as `/admin/tables` describes them. */
export interface BucketInfo {
  maxFileSize: number;
  /** Patterns such as `image/*` or `application/pdf`; null: every type. */
  allowedTypes: string[] | null;
}

/** A pattern of a bucket's `allowedTypes`: `image/png`, `image/*` or `*\/*`, in lower case (server and console). */
export const ALLOWED_TYPE_PATTERN = /^(?:[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})|\*\/\*)$/;

/** The file columns only the bytes decide: never written by a body, whatever the surface (the owner's tools too). */
export const CONTENT_COLUMNS = ['type', 'size', 'sha256'] as const;

/** A row of a bucket, as the record API answers it (plus the bucket's metadata columns). */
export interface FileRecord {
  id: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
  user_id: string | null;
  createdAt: string;
  updatedAt: string;
  [column: string]: unknown;
}

/** Image transform parameters of `GET /files/:table/:id` (API.md, Part 2 in detail, Files). */
export const TRANSFORM_PARAMETERS = ['width', 'height', 'fit', 'format', 'quality'] as const;
export type TransformParameter = (typeof TRANSFORM_PARAMETERS)[number];
export const TRANSFORM_FITS = ['cover', 'contain', 'inside'] as const;
export const TRANSFORM_FORMATS = ['webp', 'avif', 'jpeg', 'png'] as const;
export const TRANSFORM_MAX_SIDE = 4096;
export const TRANSFORM_MAX_INPUT_PIXELS = 40_000_000;

export interface TransformOptions {
  width?: number;
  height?: number;
  fit?: (typeof TRANSFORM_FITS)[number];
  format?: (typeof TRANSFORM_FORMATS)[number];
  quality?: number;
}

/** The query parameters of a signed link besides the transform's. */
export const SIGNED_LINK_PARAMETERS = ['expires', 'sig'] as const;
/** A signed link lives at most 7 days. */
export const MAX_SIGNED_LINK_SECONDS = 7 * 24 * 3600;

/** The path segment of resumable (tus) uploads under `/files/:table`: never a file id. */
export const UPLOADS_SEGMENT = 'uploads';
/** The header naming the created row after an upload (tus's last PATCH and the upload's HEAD). */
export const RECORD_ID_HEADER = 'Basalt-Record-Id';
