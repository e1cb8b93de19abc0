import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import parseRange from 'range-parser';
import { notFound } from '../../errors.js';
import { contentDisposition } from '../content/names.js';
import { servedInline, servedType } from '../content/types.js';
import type { ObjectStore } from '../storage/store.js';

/**
 * A file's bytes as HTTP (API.md, Files, and Part 2 in detail): ETag `"<sha256>"` (a variant's
 * `"<sha256>-<variant>"`) with If-None-Match, Last-Modified with If-Modified-Since, one Range honoured (several:
 * 200 whole; a start past the end: 416 with `Content-Range: bytes *\/<size>`; If-Range respected), nosniff, and
 * `Content-Disposition: attachment` for every type that is not served inline. HEAD as GET without a body. These
 * answers are outside the JSON envelope; their errors are not.
 */

/** Files up to this size are read whole where the driver offers it (bench F1's 10 KiB files among them). */
const WHOLE_BYTES = 64 * 1024;

export interface Served {
  key: string;
  size: number;
  /** The type stored with the file (or the variant's). */
  type: string;
  name: string;
  etag: string;
  lastModified: Date;
  cacheControl: string;
}

function notModified(req: IncomingMessage, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => {
      const value = tag.trim();
      return value === '*' || value === etag || value === `W/${etag}`;
    });
  }
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(lastModified.getTime() / 1000) <= Math.floor(time / 1000);
}

/** The one range to send, `unsatisfiable`, or null for the whole file. */
function rangeOf(req: IncomingMessage, served: Served): { start: number; end: number } | 'unsatisfiable' | null {
  const header = req.headers.range;
  if (header === undefined || served.size === 0) return null;
  const ifRange = req.headers['if-range'] as string | undefined;
  if (ifRange !== undefined && ifRange !== served.etag) {
    const time = Date.parse(ifRange);
    if (ifRange.startsWith('"') || ifRange.startsWith('W/') || Number.isNaN(time) || Math.floor(served.lastModified.getTime() / 1000) > Math.floor(time / 1000)) return null;
  }
  // A header of more than a handful of ranges is abuse whatever it asks: answered whole, never parsed at length.
  if (header.length > 1024) return null;
  const ranges = parseRange(served.size, header, { combine: false });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

export async function sendFile(store: ObjectStore, req: IncomingMessage, res: ServerResponse, served: Served): Promise<void> {
  res.setHeader('ETag', served.etag);
  res.setHeader('Last-Modified', served.lastModified.toUTCString());
  res.setHeader('Cache-Control', served.cacheControl);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (notModified(req, served.etag, served.lastModified)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const range = rangeOf(req, served);
  if (range === 'unsatisfiable') {
    res.statusCode = 416;
    res.setHeader('Content-Range', `bytes */${served.size}`);
    res.end();
    return;
  }
  // A small file whole at once where the driver can (one read rather than a stream's open, reads and close).
  const whole = req.method !== 'HEAD' && !range && served.size <= WHOLE_BYTES && store.readWhole ? await store.readWhole(served.key) : undefined;
  const source = req.method === 'HEAD' || whole ? null : await store.get(served.key, range ?? undefined);
  if (req.method !== 'HEAD' && !source && !whole) {
    for (const header of ['ETag', 'Last-Modified', 'Cache-Control', 'Accept-Ranges']) res.removeHeader(header);
    throw notFound("The file's bytes are missing from storage");
  }
  res.setHeader('Content-Type', servedType(served.type));
  res.setHeader('Content-Disposition', contentDisposition(servedInline(served.type) ? 'inline' : 'attachment', served.name));
  // A file never runs as a page of this origin, even if a browser were to render it.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${served.size}`);
    res.setHeader('Content-Length', range.end - range.start + 1);
  } else {
    res.statusCode = 200;
    res.setHeader('Content-Length', served.size);
  }
  if (!source) {
    res.end(whole ?? undefined);
    return;
  }
  await pipeline(source, res).catch((error: unknown) => {
    // A client that went away midway is not an error of ours.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}
