import fs from 'node:fs';
import path from 'node:path';
import type { EmailKind } from '@basalt/contract';
import { BUILT_IN } from './builtInTemplates.js';

/**
 * Mail templates per kind and locale (API.md, Part 2 in detail, Email): English is built in; `auth.templatesDir`
 * overrides any part as `<locale>/<kind>.subject|txt|html`, read once at start-up. `{{name}}` takes `link, code,
 * email, newEmail, projectName, expiresInMinutes`: HTML-escaped in the HTML part, CR and LF stripped from the subject.
 * The locale falls back by dropping subtags (`pt-BR` -> `pt` -> `en`), part by part.
 */
export type TemplateValues = Partial<Record<'link' | 'code' | 'email' | 'newEmail' | 'projectName' | 'expiresInMinutes', string>>;

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

type Part = 'subject' | 'txt' | 'html';
const PARTS: Part[] = ['subject', 'txt', 'html'];
const LOCALE = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function isLocale(value: string): boolean {
  return value.length <= 35 && LOCALE.test(value);
}

/** The locale an `Accept-Language` header prefers most (highest q, first on ties); null when none is usable. */
export function preferredLocale(header: string | undefined): string | null {
  if (!header) return null;
  let best: { tag: string; q: number } | null = null;
  for (const item of header.split(',').slice(0, 20)) {
    const [tag = '', ...params] = item.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (tag === '*' || !isLocale(tag) || !(q > 0)) continue;
    if (!best || q > best.q) best = { tag, q };
  }
  return best?.tag ?? null;
}

function fallbacks(locale: string): string[] {
  const chain: string[] = [];
  const parts = locale.split('-');
  for (let n = parts.length; n > 0; n--) chain.push(parts.slice(0, n).join('-').toLowerCase());
  if (!chain.includes('en')) chain.push('en');
  return chain;
}

export class Templates {
  /** `<locale lower-cased>/<kind>.<part>` -> text, from templatesDir. */
  private readonly overrides = new Map<string, string>();

  constructor(templatesDir: string | null) {
    if (!templatesDir || !fs.existsSync(templatesDir)) return;
    for (const locale of fs.readdirSync(templatesDir)) {
      const folder = path.join(templatesDir, locale);
      if (!isLocale(locale) || !fs.statSync(folder).isDirectory()) continue;
      for (const file of fs.readdirSync(folder)) {
        const match = /^([a-z-]+)\.(subject|txt|html)$/.exec(file);
        if (match && match[1]! in BUILT_IN) this.overrides.set(`${locale.toLowerCase()}/${file}`, fs.readFileSync(path.join(folder, file), 'utf8'));
      }
    }
  }

  private part(kind: EmailKind, part: Part, locale: string): string {
    for (const candidate of fallbacks(locale)) {
      const found = this.overrides.get(`${candidate}/${kind}.${part}`);
      if (found !== undefined) return found;
    }
    return BUILT_IN[kind][part];
  }

  render(kind: EmailKind, locale: string, values: TemplateValues): RenderedMail {
    const fill = (template: string, escape: (value: string) => string) =>
      template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (_all, name: string) => escape((values as Record<string, string | undefined>)[name] ?? ''));
    const [subject, text, html] = PARTS.map((part) => this.part(kind, part, locale)) as [string, string, string];
    return {
      subject: fill(subject, (value) => value.replace(/[\r\n]+/g, ' ')).replace(/[\r\n]+/g, ' ').trim(),
      text: fill(text, (value) => value),
      html: fill(html, escapeHtml),
    };
  }
}
