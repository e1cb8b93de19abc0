import { describe, expect, it } from 'vitest';
import { checkName, contentDisposition } from './names.js';
import { servedInline, servedType, TypeSniffer, typeAllowed } from './types.js';

async function typeOf(chunks: Array<Buffer | string>, hint?: string): Promise<string> {
  const sniffer = new TypeSniffer();
  for (const chunk of chunks) sniffer.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8'));
  return sniffer.result(hint);
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e0a0c9da0000000049454e44ae426082', 'hex');

describe('the type, from the bytes', () => {
  it('believes the signature, not the claim', async () => {
    expect(await typeOf([PNG], 'text/plain')).toBe('image/png');
    expect(await typeOf([Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n', 'latin1')], 'image/png')).toBe('application/pdf');
  });

  it('finds SVG (never served inline) and text, refined only to csv or json by the claim', async () => {
    expect(await typeOf(['<?xml version="1.0"?>\n<!-- a comment -->\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'])).toBe('image/svg+xml');
    expect(await typeOf(['hello, ', 'wörld'])).toBe('text/plain');
    expect(await typeOf(['a,b\n1,2\n'], 'text/csv; charset=utf-8')).toBe('text/csv');
    expect(await typeOf(['{"a":1}'], 'application/json')).toBe('application/json');
    expect(await typeOf(['<html><script>alert(1)</script></html>'], 'text/html')).toBe('text/plain');
    expect(await typeOf(['<svg onload=alert(1)>'], 'text/plain')).toBe('image/svg+xml');
  });

  it('calls anything else octet-stream: NUL bytes, broken UTF-8, even split across chunks', async () => {
    expect(await typeOf([Buffer.from([0x61, 0x00, 0x62])])).toBe('application/octet-stream');
    expect(await typeOf([Buffer.from([0x61, 0xc3]), Buffer.from([0xa9])])).toBe('text/plain');
    expect(await typeOf([Buffer.from([0x61, 0xc3])])).toBe('application/octet-stream');
    expect(await typeOf([Buffer.from([0x80, 0x81, 0x82, 0x41])])).toBe('application/octet-stream');
  });

  it('serves inline only images (not SVG), PDF, audio, video and plain text; text says its charset', () => {
    expect(['image/png', 'application/pdf', 'audio/mpeg', 'video/mp4', 'text/plain'].map(servedInline)).toEqual([true, true, true, true, true]);
    expect(['image/svg+xml', 'text/html', 'text/csv', 'application/json', 'application/octet-stream'].map(servedInline)).toEqual([false, false, false, false, false]);
    expect(servedType('text/plain')).toBe('text/plain; charset=utf-8');
  });

  it('matches a bucket’s allowedTypes exactly or by major type', () => {
    expect(typeAllowed('image/png', ['image/*'])).toBe(true);
    expect(typeAllowed('image/png', ['application/pdf', 'image/png'])).toBe(true);
    expect(typeAllowed('image/svg+xml', ['image/png'])).toBe(false);
    expect(typeAllowed('text/plain', ['image/*'])).toBe(false);
    expect(typeAllowed('text/plain', null)).toBe(true);
  });
});

describe('names', () => {
  it('takes 1-255 bytes of UTF-8 without control characters or slashes', () => {
    expect(checkName('Résumé 2026.pdf')).toBe('Résumé 2026.pdf');
    expect(checkName('é'.repeat(127))).toHaveLength(127);
    for (const bad of ['', 'a/b', 'a\\b', 'a\nb', 'a\u0000', 'a\u0085b', 'é'.repeat(128), 'x\ud800']) {
      expect(() => checkName(bad), JSON.stringify(bad)).toThrow(/name must be/);
    }
  });

  it('writes Content-Disposition with an ASCII fallback and the exact name encoded: no name breaks the header', () => {
    expect(contentDisposition('attachment', 'report "final".pdf')).toBe(`attachment; filename="report _final_.pdf"; filename*=UTF-8''report%20%22final%22.pdf`);
    expect(contentDisposition('inline', 'çà (1)*.png')).toBe(`inline; filename="__ (1)*.png"; filename*=UTF-8''%C3%A7%C3%A0%20%281%29%2A.png`);
    expect(contentDisposition('attachment', 'a;b=c\\d.txt')).toBe(`attachment; filename="a;b=c_d.txt"; filename*=UTF-8''a%3Bb%3Dc%5Cd.txt`);
  });
});
