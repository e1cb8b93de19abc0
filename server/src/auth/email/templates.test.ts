import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EMAIL_KINDS } from '@basalt/contract';
import { isLocale, preferredLocale, Templates } from './templates.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-templates-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

describe('templates', () => {
  it('has English text and HTML for every kind, with the link and code where the kind carries them', () => {
    const templates = new Templates(null);
    for (const kind of EMAIL_KINDS) {
      const mail = templates.render(kind, 'en', { link: 'https://x.test/#t', code: '123456', email: 'a@b.test', newEmail: 'c@d.test', projectName: 'P', expiresInMinutes: '15' });
      expect(mail.subject.length, kind).toBeGreaterThan(0);
      expect(mail.text.length, kind).toBeGreaterThan(0);
      expect(mail.html, kind).toContain('<html>');
      if (['verify', 'recover', 'otp', 'email-change', 'invite'].includes(kind)) {
        expect(mail.text, kind).toContain('https://x.test/#t');
        expect(mail.text, kind).toContain('123456');
        expect(mail.html, kind).toContain('href="https://x.test/#t"');
      }
    }
  });

  it('escapes values in HTML and strips line breaks from the subject', () => {
    const mail = new Templates(null).render('test', 'en', { projectName: '<script>alert("x")</script>\r\nBcc: evil@x.test', email: 'a@b.test' });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text).toContain('<script>');
  });

  it('takes overrides per locale and part, falling back pt-BR -> pt -> en', () => {
    write('pt/recover.subject', 'Redefinir a senha de {{email}}');
    write('pt-BR/recover.txt', 'Olá {{email}}: {{link}} ou {{code}}');
    write('fr/unknown-kind.txt', 'ignored');
    const templates = new Templates(dir);
    const br = templates.render('recover', 'pt-BR', { email: 'a@b.test', link: 'L', code: 'C' });
    expect(br.subject).toBe('Redefinir a senha de a@b.test');
    expect(br.text).toBe('Olá a@b.test: L ou C');
    expect(br.html).toContain('Choose a new password');
    const pt = templates.render('recover', 'pt', { email: 'a@b.test', link: 'L', code: 'C' });
    expect(pt.text).toContain('Choose a new one here');
    expect(templates.render('recover', 'de-AT', { email: 'a@b.test' }).subject).toContain('Reset your');
  });

  it('reads a locale from Accept-Language by preference', () => {
    expect(preferredLocale('de-CH, fr;q=0.9, en;q=0.8')).toBe('de-CH');
    expect(preferredLocale('en;q=0.5, pt-BR;q=0.9')).toBe('pt-BR');
    expect(preferredLocale('*')).toBeNull();
    expect(preferredLocale("x'); DROP TABLE users; --")).toBeNull();
    expect(preferredLocale(undefined)).toBeNull();
    expect(isLocale('pt-BR')).toBe(true);
    expect(isLocale('../../etc')).toBe(false);
    expect(isLocale('a'.repeat(36))).toBe(false);
  });
});
