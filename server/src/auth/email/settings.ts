import path from 'node:path';
import { EMAIL_VERIFICATION_MODES, type EmailVerificationMode } from '@basalt/contract';
import { ConfigError } from '../../configError.js';
import { parseRedirectRules, type RedirectRule } from './redirects.js';

/**
 * What the email flows are configured with: `SMTP_URL` and `PUBLIC_URL` from the environment, `email` and `auth` of
 * config.json (API.md, "Email"). Checked once at start-up; a mistake stops it with a message naming the key.
 */
export interface EmailSettings {
  /** SMTP_URL; null: mails wait in the outbox, `unsent: no SMTP`. */
  smtpUrl: string | null;
  from: string | null;
  projectName: string;
  /** Basalt's external base URL, without a trailing slash: links to its own confirm page start here. */
  publicUrl: string;
  /** PUBLIC_URL was unset: `http://localhost:<the port listened on>` (serve.ts sets it once listening, PORT=0 too). */
  publicUrlIsDefault: boolean;
  verification: EmailVerificationMode;
  emailSignIn: boolean;
  /** The app's page that takes the links (`#type=...&token=...`); null: Basalt's `/auth/confirm`. */
  siteUrl: string | null;
  redirectUrls: RedirectRule[];
  templatesDir: string | null;
}

/** The `auth` keys that belong to identity providers and the second factor (issue 27) are accepted and left alone here. */
const AUTH_KEYS = ['emailVerification', 'emailSignIn', 'siteUrl', 'redirectUrls', 'templatesDir', 'providers'];
const EMAIL_KEYS = ['from', 'projectName'];
/** `app@example.com` or `Name <app@example.com>`: what an SMTP server takes as a sender. */
const SENDER = /^(?:[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+|[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>)$/;

function objectAt(value: unknown, name: string, configPath: string, known: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${configPath}: "${name}" must be an object`);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new ConfigError(`${configPath}: unknown key "${name}.${key}" (known keys: ${known.join(', ')})`);
  }
  return value as Record<string, unknown>;
}

function optionalText(value: unknown, name: string, configPath: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${configPath}: "${name}" must be a non-empty string`);
  return value.trim();
}

function httpUrl(value: string, name: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${where}: ${name} must be an http(s) URL, got "${value}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) throw new ConfigError(`${where}: ${name} must be an http(s) URL without user or password`);
  return url.href;
}

function smtpUrlOf(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError('SMTP_URL must be a URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  return url.href;
}

/** No SMTP, verification optional, no email sign-in, links to Basalt's own page on `publicUrl`. */
export function defaultEmailSettings(publicUrl = 'http://localhost:3000'): EmailSettings {
  return { ...parseEmailSettings({}, {}, { configPath: 'config.json', production: false, port: 3000 }), publicUrl };
}

export function parseEmailSettings(
  project: { email?: unknown; auth?: unknown },
  env: NodeJS.ProcessEnv,
  context: { configPath: string; production: boolean; port: number },
): EmailSettings {
  const { configPath } = context;
  const email = objectAt(project.email, 'email', configPath, EMAIL_KEYS);
  const auth = objectAt(project.auth, 'auth', configPath, AUTH_KEYS);
  const smtpUrl = smtpUrlOf(env.SMTP_URL);
  const from = optionalText(email.from, 'email.from', configPath);
  if (from !== null && !SENDER.test(from)) throw new ConfigError(`${configPath}: "email.from" must be an address (app@example.com) or a name and an address (App <app@example.com>)`);
  if (smtpUrl && !from) throw new ConfigError(`SMTP_URL is set but ${configPath} has no "email": { "from": "..." }: mails need a sender address`);
  const verification = auth.emailVerification ?? 'optional';
  if (!(EMAIL_VERIFICATION_MODES as readonly unknown[]).includes(verification)) {
    throw new ConfigError(`${configPath}: "auth.emailVerification" must be one of ${EMAIL_VERIFICATION_MODES.join(', ')}`);
  }
  const emailSignIn = auth.emailSignIn ?? false;
  if (typeof emailSignIn !== 'boolean') throw new ConfigError(`${configPath}: "auth.emailSignIn" must be true or false`);
  const siteText = optionalText(auth.siteUrl, 'auth.siteUrl', configPath);
  const siteUrl = siteText === null ? null : httpUrl(siteText, '"auth.siteUrl"', configPath);
  if (env.PUBLIC_URL === undefined || env.PUBLIC_URL.trim() === '') {
    if (context.production && smtpUrl) throw new ConfigError('PUBLIC_URL must be set when NODE_ENV=production and SMTP_URL is set: the links in mails start with it');
  }
  const publicUrl = env.PUBLIC_URL?.trim() ? httpUrl(env.PUBLIC_URL.trim(), 'PUBLIC_URL', 'PUBLIC_URL') : `http://localhost:${context.port}`;
  const templatesText = optionalText(auth.templatesDir, 'auth.templatesDir', configPath);
  return {
    smtpUrl,
    from,
    projectName: optionalText(email.projectName, 'email.projectName', configPath) ?? 'Basalt',
    publicUrl: publicUrl.replace(/\/+$/, ''),
    publicUrlIsDefault: !env.PUBLIC_URL?.trim(),
    verification: verification as EmailVerificationMode,
    emailSignIn,
    siteUrl,
    redirectUrls: parseRedirectRules(auth.redirectUrls, siteUrl, configPath),
    templatesDir: templatesText === null ? null : path.resolve(path.dirname(configPath), templatesText),
  };
}
