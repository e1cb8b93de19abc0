import { invalidPathEncoding } from '../errors.js';

/** A path segment as Express decodes route parameters; bad percent-encoding is the caller's 400. */
export function decodePathSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidPathEncoding();
  }
}
