import { TRANSFORM_FITS as FITS, TRANSFORM_FORMATS as FORMATS, TRANSFORM_MAX_SIDE as MAX_SIDE, TRANSFORM_PARAMETERS, type TransformParameter } from '@basalt/contract';
import { invalidParameter } from '../../errors.js';

/**
 * Image transform parameters of `GET /files/:table/:id` (API.md, Files and Part 2 in detail): `width`, `height` (at
 * most 4,096, rounded up to a multiple of 16 so a handful of variants serve every size), `fit` (cover, contain,
 * inside), `format` (webp, avif, jpeg, png), `quality` (1-100, default 80). Each once, as text; a refusal names it.
 */
export { TRANSFORM_PARAMETERS, MAX_SIDE };
export const SIDE_STEP = 16;
export const DEFAULT_QUALITY = 80;

export interface Transform {
  width: number | null;
  height: number | null;
  fit: (typeof FITS)[number];
  format: (typeof FORMATS)[number] | null;
  quality: number;
}

function whole(name: string, value: string, min: number, max: number): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) < min || Number(value) > max) throw invalidParameter(name, `${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalidParameter(name, `${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

const side = (name: string, value: string) => Math.min(MAX_SIDE, Math.ceil(whole(name, value, 1, MAX_SIDE) / SIDE_STEP) * SIDE_STEP);

/** The transform the query asks for, or null when it names none of the parameters. */
export function parseTransform(query: Record<string, unknown>): Transform | null {
  const given = TRANSFORM_PARAMETERS.filter((name) => query[name] !== undefined);
  if (given.length === 0) return null;
  const text: Partial<Record<TransformParameter, string>> = {};
  for (const name of given) {
    const value = query[name];
    if (typeof value !== 'string') throw invalidParameter(name, `${name} must be given once`);
    text[name] = value;
  }
  const transform: Transform = {
    width: text.width === undefined ? null : side('width', text.width),
    height: text.height === undefined ? null : side('height', text.height),
    fit: text.fit === undefined ? 'cover' : oneOf('fit', text.fit, FITS),
    format: text.format === undefined ? null : oneOf('format', text.format, FORMATS),
    quality: text.quality === undefined ? DEFAULT_QUALITY : whole('quality', text.quality, 1, 100),
  };
  return transform;
}

/** The variant's name in storage and ETags: every parameter, in one order. */
export function variantName(transform: Transform): string {
  return `w${transform.width ?? ''}h${transform.height ?? ''}-${transform.fit}-${transform.format ?? 'same'}-q${transform.quality}`;
}
