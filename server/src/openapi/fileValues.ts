import { MAX_SIGNED_LINK_SECONDS, TRANSFORM_FITS, TRANSFORM_FORMATS, TRANSFORM_MAX_INPUT_PIXELS, TRANSFORM_MAX_SIDE } from '@basalt/contract';
import { NAME_MAX_BYTES } from '../files/content/names.js';
import { DEFAULT_QUALITY, SIDE_STEP } from '../files/transform/parameters.js';
import { digitsAtMost } from './patterns.js';
import { int, object, str, type Schema } from './schema.js';

/**
 * The values of `/files` (issue 28) as patterns and schemas: a file's `name`, the image transform parameters, a signed
 * link's `expires` and `sig`, the headers a file is served with, and the bodies of a signing request and its answer.
 * Built from the limits the service checks; server/src/openapi/filePatterns.test.ts holds each to the service's own
 * functions (a name's bytes cannot be counted by a pattern: it admits a part of what the service takes, never more).
 */

/** A whole number from 1 to `max`, at most 5 digits with leading zeros (the service reads `^[0-9]{1,5}$`). */
const positive = (max: number): string => `^(?!0+$)${digitsAtMost(BigInt(max), 5)}$`;
export const SIDE_PATTERN = positive(TRANSFORM_MAX_SIDE);
export const QUALITY_PATTERN = positive(100);

/** A signed link's `expires` (epoch seconds) and `sig` (an HMAC-SHA256 in base64url), as the service reads them. */
export const EXPIRES_PATTERN = '^[0-9]{1,12}$';
export const SIG_PATTERN = '^[A-Za-z0-9_-]{43}$';

/** Printable ASCII but `/` and `\`: one byte each. */
const ASCII = ' -.0-\\[\\]-~';
/**
 * A file's name: 1 to 255 bytes of UTF-8, no control character (C0, DEL, C1), `/` or `\`, no lone surrogate. Counted
 * in characters: ASCII 1-255 (exact), up to U+07FF 1-127, the rest of the BMP 1-85, anything 1-63 (read with the `u`
 * flag a character beyond the BMP is one code point; without it, a surrogate pair).
 */
export const NAME_PATTERN = `^(?:[${ASCII}]{1,${NAME_MAX_BYTES}}|[${ASCII}\\u00A0-\\u07FF]{1,${Math.floor(NAME_MAX_BYTES / 2)}}|[${ASCII}\\u00A0-\\uD7FF\\uE000-\\uFFFF]{1,${Math.floor(NAME_MAX_BYTES / 3)}}|(?:[^\\u0000-\\u001F\\u007F-\\u009F/\\\\\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]){1,${Math.floor(NAME_MAX_BYTES / 4)}})$`;

export const nameSchema = (use: string): Schema =>
  str({ pattern: NAME_PATTERN, description: `The file's name (${use}): 1 to ${NAME_MAX_BYTES} bytes of UTF-8, no control characters, \`/\` or \`\\\`; never part of where the bytes are kept. The pattern counts characters, so it admits every such name of ASCII characters, and others as far as their characters' widths guarantee the bytes` });

const sideText = (name: string) => `The ${name} in pixels, 1 to ${TRANSFORM_MAX_SIDE}, rounded up to a multiple of ${SIDE_STEP}`;
const TRANSFORM_TEXTS = {
  width: sideText('width'),
  height: sideText('height'),
  fit: '`cover` (default: fills the box, cropping), `contain` (fits inside, letterboxed) or `inside` (fits inside, no larger than the original)',
  format: 'The variant\'s format (default: the original\'s)',
  quality: `1 to 100 (default ${DEFAULT_QUALITY})`,
};

/** The transform parameters of a download, as text (each once). */
export const TRANSFORM_QUERY: Record<keyof typeof TRANSFORM_TEXTS, Schema> = {
  width: str({ pattern: SIDE_PATTERN, description: TRANSFORM_TEXTS.width }),
  height: str({ pattern: SIDE_PATTERN, description: TRANSFORM_TEXTS.height }),
  fit: str({ enum: [...TRANSFORM_FITS], description: TRANSFORM_TEXTS.fit }),
  format: str({ enum: [...TRANSFORM_FORMATS], description: TRANSFORM_TEXTS.format }),
  quality: str({ pattern: QUALITY_PATTERN, description: TRANSFORM_TEXTS.quality }),
};

/** A transform in a signing request: the same values, numbers as JSON numbers or as text. */
const TRANSFORM_BODY: Record<keyof typeof TRANSFORM_TEXTS, Schema> = {
  width: { anyOf: [int({ minimum: 1, maximum: TRANSFORM_MAX_SIDE }), TRANSFORM_QUERY.width], description: TRANSFORM_TEXTS.width },
  height: { anyOf: [int({ minimum: 1, maximum: TRANSFORM_MAX_SIDE }), TRANSFORM_QUERY.height], description: TRANSFORM_TEXTS.height },
  fit: TRANSFORM_QUERY.fit,
  format: TRANSFORM_QUERY.format,
  quality: { anyOf: [int({ minimum: 1, maximum: 100 }), TRANSFORM_QUERY.quality], description: TRANSFORM_TEXTS.quality },
};

export const TRANSFORM_RULES = `Images only (not SVG): anything else is 400 naming the first transform parameter. At most ${TRANSFORM_MAX_SIDE} px a side out and ${TRANSFORM_MAX_INPUT_PIXELS / 1_000_000} megapixels in (else 400 naming the parameter); each variant is made once and kept with its file`;

/** The headers of a file's bytes (200, 206, 304; HEAD as GET). */
const VARIANT = `-w[0-9]*h[0-9]*-(?:${TRANSFORM_FITS.join('|')})-(?:${TRANSFORM_FORMATS.join('|')}|same)-q[0-9]{1,3}`;
const HTTP_DATE = '^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';
/** RFC 6266 with RFC 8187: an ASCII fallback (no `"`, `\` or `%`) and the exact name percent-encoded. */
const DISPOSITION = "^(?:inline|attachment); filename=\"[\\u0020\\u0021\\u0023\\u0024\\u0026-\\u005B\\u005D-\\u007E]*\"; filename\\*=UTF-8''[A-Za-z0-9._~!%-]+$";

const header = (schema: Schema, description: string, required = true): Schema => ({ required, description, schema });

export const CACHING_HEADERS: Record<string, Schema> = {
  ETag: header(str({ pattern: `^"[0-9a-f]{64}(?:${VARIANT})?"$` }), 'The file\'s SHA-256 in quotes; a variant\'s adds its name (`"<sha256>-<variant>"`). Send it back in If-None-Match'),
  'Last-Modified': header(str({ pattern: HTTP_DATE }), 'When the file\'s row last changed'),
  'Cache-Control': header(
    str({ pattern: '^(?:public|private), max-age=[0-9]+(?:, must-revalidate)?$' }),
    '`public, max-age=0, must-revalidate` where anon may read every file of the bucket, else `private, max-age=0, must-revalidate`; through a signed link `private, max-age=<seconds it has left>`',
  ),
  'Accept-Ranges': header(str({ enum: ['bytes'] }), 'One range is honoured'),
};

export const BYTES_HEADERS: Record<string, Schema> = {
  ...CACHING_HEADERS,
  'Content-Disposition': header(str({ pattern: DISPOSITION }), '`inline` for images (not SVG), PDF, audio, video and plain text, else `attachment`; the name as an ASCII fallback and exactly (RFC 8187)'),
  'X-Content-Type-Options': header(str({ enum: ['nosniff'] }), 'The type is Basalt\'s, found in the bytes: never sniffed'),
};

export const CONTENT_RANGE = (pattern: string, description: string): Schema => header(str({ pattern }), description);

/** The schemas `/files` shares; document.ts adds them to the shared ones. */
export const FILE_SCHEMAS: Record<string, Schema> = {
  FileBytes: {
    type: 'string',
    format: 'binary',
    description: 'The file\'s bytes. `Content-Type` is the type Basalt found in them (the row\'s `type`; `text/plain` adds `; charset=utf-8`), or the variant\'s',
  },
  Transform: object(TRANSFORM_BODY, [], { description: 'An image variant the link is for (the link opens that variant only)' }),
  SignFile: object(
    {
      expiresIn: int({ minimum: 1, maximum: MAX_SIGNED_LINK_SECONDS, description: `Seconds the link works, at most ${MAX_SIGNED_LINK_SECONDS} (7 days)` }),
      transform: { $ref: '#/components/schemas/Transform' },
    },
    ['expiresIn'],
  ),
  SignedLink: object({
    url: str({ format: 'uri', description: 'PUBLIC_URL/files/<table>/<id>?<transform>&expires=<epoch s>&sig=<HMAC>: anyone may open it until it expires; replacing the file ends it' }),
    expiresAt: str({ format: 'date-time' }),
  }),
};
