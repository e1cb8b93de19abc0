import { invalidField } from '../../errors.js';

/**
 * A file's `name` (API.md, Part 2 in detail, Files): 1-255 UTF-8 bytes, no control characters, no `/` or `\`; it is
 * the app's label, never part of a storage key. Served in `Content-Disposition` with an ASCII fallback and the exact
 * name percent-encoded (RFC 6266 / RFC 8187), so no name can break the header.
 */
export const NAME_MAX_BYTES = 255;
export const DEFAULT_NAME = 'file';
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f/\\]/;
/** A lone surrogate: not text UTF-8 can carry. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function checkName(name: string): string {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0 || bytes > NAME_MAX_BYTES || FORBIDDEN.test(name) || LONE_SURROGATE.test(name)) {
    throw invalidField('name', `name must be 1 to ${NAME_MAX_BYTES} bytes of UTF-8 without control characters, / or \\`);
  }
  return name;
}

/** RFC 8187's value-chars: what encodeURIComponent leaves, less `'()*`, which the grammar does not allow. */
const encoded = (name: string) => encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded(name)}`;
}
