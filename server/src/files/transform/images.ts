import os from 'node:os';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import { TRANSFORM_MAX_INPUT_PIXELS } from '@basalt/contract';
import { ApiError, invalidParameter } from '../../errors.js';
import type { Transform } from './parameters.js';

/**
 * Image transforms with sharp (libvips): at most 40 megapixels in (checked from the header, before any pixel is
 * decoded: a decompression bomb is refused, not decoded), a bounded number at once per process (the rest wait in
 * line; past 32 waiting, 503 with Retry-After), libvips' own cache off and one thread per transform, so memory stays
 * bounded on small machines (Directus's transforms crash 512 MB instances: directus#22025).
 */
export const MAX_WAITING = 32;
sharp.cache(false);
sharp.concurrency(1);

const FORMATS_SHARP_WRITES: Record<string, 'jpeg' | 'png' | 'webp' | 'avif' | 'gif'> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
};
const MIME_OF: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif', gif: 'image/gif' };

/** Whether a file of this type can be transformed: raster images sharp reads (never SVG, which it would rasterise from script-capable XML). */
export function transformable(type: string): boolean {
  return type.startsWith('image/') && type !== 'image/svg+xml' && type !== 'image/x-icon' && type !== 'image/vnd.microsoft.icon';
}

export interface Variant {
  bytes: Buffer;
  type: string;
}

export class ImageTransformer {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly slots = Math.max(1, Math.min(4, os.availableParallelism() - 1 || 1))) {}

  /** The variant of the image streamed in `source`; `first` names the parameter a refused input is blamed on. */
  async transform(source: Readable, type: string, transform: Transform, first: string): Promise<Variant> {
    await this.slot();
    try {
      return await this.run(source, type, transform, first);
    } finally {
      this.release();
    }
  }

  private async run(source: Readable, type: string, transform: Transform, first: string): Promise<Variant> {
    const format = transform.format ?? FORMATS_SHARP_WRITES[type] ?? 'webp';
    const image = sharp({ limitInputPixels: TRANSFORM_MAX_INPUT_PIXELS, failOn: 'error', sequentialRead: true });
    let pipeline = image.rotate();
    if (transform.width !== null || transform.height !== null) {
      pipeline = pipeline.resize({ width: transform.width ?? undefined, height: transform.height ?? undefined, fit: transform.fit, withoutEnlargement: true });
    }
    pipeline = pipeline.toFormat(format, format === 'png' || format === 'gif' ? {} : { quality: transform.quality });
    source.once('error', (error) => image.destroy(error));
    source.pipe(image);
    try {
      const bytes = await pipeline.toBuffer();
      return { bytes, type: MIME_OF[format]! };
    } catch (error) {
      source.destroy();
      const message = (error as Error).message ?? '';
      if (/pixel limit/i.test(message)) throw invalidParameter(first, `the image is larger than ${TRANSFORM_MAX_INPUT_PIXELS / 1e6} megapixels: it cannot be transformed`);
      throw invalidParameter(first, 'the image cannot be read for a transform');
    }
  }

  private slot(): Promise<void> {
    if (this.running < this.slots) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= MAX_WAITING) {
      return Promise.reject(new ApiError('UNAVAILABLE', 'Too many image transforms are waiting; try again shortly', { retryAfter: 2 }));
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

