import type { BucketInfo } from '@basalt/contract';

/**
 * What the console does with a file of a given type, and how it words sizes and a bucket's settings. Pure functions,
 * tested in fileKinds.test.ts.
 */

/**
 * Images the server makes variants of (server/src/files/transform/images.ts, `transformable`): their thumbnails and
 * previews are variants (small webp), never the original. SVG is not one (it is served as an attachment).
 */
export function isTransformable(type: string): boolean {
  return type.startsWith('image/') && type !== 'image/svg+xml' && type !== 'image/x-icon' && type !== 'image/vnd.microsoft.icon';
}

/** Types shown as text in the preview (the first PREVIEW_TEXT_BYTES of them). */
const TEXT_TYPES = new Set(['application/json', 'application/xml', 'application/javascript', 'application/x-ndjson', 'application/yaml', 'application/toml', 'application/sql']);

/**
 * How the preview shows a file: a variant of an image; an image as stored (SVG, icons: no variant exists, and an
 * <img> never runs a script); text; or nothing (audio, video, PDF and the rest: downloaded to be opened).
 */
export type PreviewKind = 'variant' | 'image' | 'text' | 'none';

export function previewKindOf(type: string): PreviewKind {
  if (isTransformable(type)) return 'variant';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) return 'text';
  return 'none';
}

/** How much of a text file the preview reads (a Range request): enough to see what it is. */
export const PREVIEW_TEXT_BYTES = 64 * 1024;
/** An image shown as stored (no variant) is read whole: above this size it is downloaded instead. */
export const PREVIEW_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The variant a thumbnail shows: a square, cropped, at twice its CSS size for sharp screens. */
export const THUMBNAIL_TRANSFORM = { width: '128', height: '128', fit: 'cover', format: 'webp' } as const;
/** The variant the preview shows: the whole image within a box no screen needs more than. */
export const PREVIEW_TRANSFORM = { width: '1600', height: '1600', fit: 'inside', format: 'webp' } as const;

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size in words: `812 bytes`, `1.5 KB`, `50 MB` (units of 1,024). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return String(bytes);
  if (bytes === 1) return '1 byte';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${bytes} bytes`;
  const rounded = value >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded} ${UNITS[unit]}`;
}

/** The file picker's `accept`: the bucket's patterns (a browser reads `image/*` the same way); none for every type. */
export function acceptOf(allowedTypes: readonly string[] | null | undefined): string | undefined {
  if (!allowedTypes || allowedTypes.includes('*/*')) return undefined;
  return allowedTypes.join(',');
}

/** One line on what a bucket takes: `Any type, up to 50 MB each.` */
export function describeBucket(bucket: BucketInfo | undefined): string {
  if (!bucket) return '';
  const types = bucket.allowedTypes && !bucket.allowedTypes.includes('*/*') ? bucket.allowedTypes.join(', ') : 'Any type';
  return `${types}, up to ${formatBytes(bucket.maxFileSize)} each.`;
}

/** Why a file is refused before it is sent (the server would answer 413); undefined when it may go. */
export function sizeProblem(file: { name: string; size: number }, table: string, bucket: BucketInfo | undefined): string | undefined {
  if (!bucket || file.size <= bucket.maxFileSize) return undefined;
  return `${file.name} is ${formatBytes(file.size)}; ${table} takes files of at most ${formatBytes(bucket.maxFileSize)}.`;
}

/** The short mark a file without a thumbnail shows: its extension, else its subtype (`PDF`, `TXT`, `ZIP`). */
export function typeMark(name: string, type: string): string {
  const extension = /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1];
  const subtype = type.split('/')[1]?.split(/[+.;-]/)[0];
  return (extension ?? subtype ?? 'file').slice(0, 4).toUpperCase();
}
