import { parseEmailSettings, type EmailSettings } from '../../src/auth/email/settings.js';

/** Email settings as config.json and the environment would give them (SMTP_URL, PUBLIC_URL, `email`, `auth`). */
export function emailSettings(options: { smtpUrl?: string; auth?: Record<string, unknown>; email?: Record<string, unknown> } = {}): EmailSettings {
  return parseEmailSettings(
    { email: { from: 'Test App <app@example.test>', projectName: 'Test App', ...options.email }, auth: { redirectUrls: ['http://app.example.test/*', 'myapp://done'], ...options.auth } },
    { ...(options.smtpUrl ? { SMTP_URL: options.smtpUrl } : {}), PUBLIC_URL: 'http://basalt.example.test' },
    { configPath: '/tmp/config.json', production: false, port: 3000 },
  );
}

/** The fragment of a mail's link: `type`, `token`, `redirectTo`. */
export function fragmentOf(link: string): URLSearchParams {
  return new URLSearchParams(new URL(link).hash.slice(1));
}
