import { fileTypeFromBuffer } from 'file-type';

/**
 * What a file is, found from its bytes while they stream (API.md, Part 2 in detail, Files): a signature in the first
 * bytes (file-type 21, a maintained magic-number library); when none matches, `image/svg+xml` for an SVG document,
 * `text/plain` for valid UTF-8 without NUL (the request's `Content-Type` may refine it to `text/csv` or
 * `application/json`, never to a type served inline), else `application/octet-stream`. The client's claim alone never
 * decides a type.
 */
export const HEAD_BYTES = 4100;
const REFINES_TEXT = new Set(['text/csv', 'application/json']);
const SVG_START = /^(?:\uFEFF)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE\s+svg[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/i;

export class TypeSniffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private text = true;

  /** Each chunk as it streams by (the chunks themselves go on to storage untouched). */
  push(chunk: Buffer): void {
    if (this.headBytes < HEAD_BYTES) {
      this.head.push(chunk.subarray(0, HEAD_BYTES - this.headBytes));
      this.headBytes += Math.min(chunk.length, HEAD_BYTES - this.headBytes);
    }
    if (!this.text) return;
    if (chunk.includes(0)) {
      this.text = false;
      return;
    }
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      this.text = false;
    }
  }

  /** The type, once every byte went by; `hint`: the request's Content-Type, if any. */
  async result(hint?: string | null): Promise<string> {
    const head = Buffer.concat(this.head);
    if (this.text) {
      try {
        this.decoder.decode();
      } catch {
        this.text = false;
      }
    }
    // Before the signatures: file-type calls an SVG with an XML declaration application/xml.
    if (this.text && SVG_START.test(head.toString('utf8'))) return 'image/svg+xml';
    const found = await fileTypeFromBuffer(head);
    if (found) return found.mime;
    if (!this.text) return 'application/octet-stream';
    const claimed = hint?.split(';')[0]?.trim().toLowerCase();
    return claimed && REFINES_TEXT.has(claimed) ? claimed : 'text/plain';
  }
}

/** Served `inline`: images (not SVG, which can script), PDF, audio, video and plain text; anything else `attachment`. */
export function servedInline(type: string): boolean {
  if (type === 'image/svg+xml') return false;
  return type.startsWith('image/') || type.startsWith('audio/') || type.startsWith('video/') || type === 'application/pdf' || type === 'text/plain';
}

/** The `Content-Type` a file is served with: text/plain says its charset. */
export const servedType = (type: string) => (type === 'text/plain' ? 'text/plain; charset=utf-8' : type);

/** Whether `type` matches one of a bucket's `allowedTypes` (`image/png`, `image/*`, `*\/*`). */
export function typeAllowed(type: string, patterns: readonly string[] | null): boolean {
  if (!patterns) return true;
  const [major] = type.split('/');
  return patterns.some((pattern) => pattern === type || pattern === '*/*' || (pattern.endsWith('/*') && pattern.slice(0, -2) === major));
}
