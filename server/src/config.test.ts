import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';

/** The settings of issue 25 (docs/operations.md): how Basalt talks to a transaction pooler. */
describe('DATABASE_POOL_MODE and DATABASE_LISTEN_URL', () => {
  const base = { DATABASE_URL: 'postgres://app@pooler:6432/app' };

  it('defaults to a session connection listening on DATABASE_URL', () => {
    const config = loadConfig(base);
    expect(config.poolMode).toBe('session');
    expect(config.listenUrl).toBeUndefined();
  });

  it('takes transaction mode and a listen URL of its own', () => {
    const config = loadConfig({ ...base, DATABASE_POOL_MODE: 'transaction', DATABASE_LISTEN_URL: 'postgres://app@primary:5432/app' });
    expect(config.poolMode).toBe('transaction');
    expect(config.listenUrl).toBe('postgres://app@primary:5432/app');
  });

  it('refuses any other pool mode, naming the variable', () => {
    expect(() => loadConfig({ ...base, DATABASE_POOL_MODE: 'statement' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, DATABASE_POOL_MODE: 'Transaction' })).toThrow(/DATABASE_POOL_MODE/);
  });
});

describe('DATABASE_REPLICA_URLS and its companions', () => {
  const base = { DATABASE_URL: 'postgres://app@primary:5432/app' };

  it('no standbys by default', () => {
    expect(loadConfig(base).replicas).toBeNull();
  });

  it('takes comma-separated standbys with the documented defaults, and the settings', () => {
    expect(loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://app@standby1/app, postgres://app@standby2/app' }).replicas).toEqual({
      urls: ['postgres://app@standby1/app', 'postgres://app@standby2/app'],
      waitMs: 20,
      maxLagMs: 10_000,
      realtime: false,
    });
    const tuned = loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://app@standby1/app', REPLICA_WAIT_MS: '0', REPLICA_MAX_LAG_MS: '2500', REALTIME_FROM_REPLICA: 'true' });
    expect(tuned.replicas).toMatchObject({ waitMs: 0, maxLagMs: 2500, realtime: true });
  });

  it('refuses what it cannot use, naming the variable', () => {
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'standby1:5432' })).toThrow(/DATABASE_REPLICA_URLS/);
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://s/app', REPLICA_WAIT_MS: '-1' })).toThrow(/REPLICA_WAIT_MS/);
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://s/app', REPLICA_MAX_LAG_MS: '0' })).toThrow(/REPLICA_MAX_LAG_MS/);
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://s/app', REALTIME_FROM_REPLICA: 'yes' })).toThrow(/REALTIME_FROM_REPLICA/);
    expect(() => loadConfig({ ...base, REALTIME_FROM_REPLICA: 'true' })).toThrow(/needs DATABASE_REPLICA_URLS/);
  });
});

/** Email (issue 26): SMTP_URL, PUBLIC_URL, and `email` / `auth` of config.json, checked at start-up. */
describe('email settings', () => {
  const withConfig = (json: unknown, env: Record<string, string> = {}) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-config-'));
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(json));
    try {
      return loadConfig({ DATABASE_URL: 'postgres://app@db/app', CONFIG_PATH: path.join(dir, 'config.json'), ...env });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('needs nothing: no SMTP, verification optional, links to Basalt on localhost', () => {
    const { email } = withConfig({}, { PORT: '4000' });
    expect(email).toMatchObject({ smtpUrl: null, verification: 'optional', emailSignIn: false, siteUrl: null, redirectUrls: [], publicUrl: 'http://localhost:4000' });
  });

  it('takes SMTP with a sender, the site, its redirects and templates', () => {
    const { email } = withConfig(
      { email: { from: 'app@example.com', projectName: 'Shop' }, auth: { emailVerification: 'required', emailSignIn: true, siteUrl: 'https://shop.example.com/auth', redirectUrls: ['https://shop.example.com/*'], templatesDir: 'mails' } },
      { SMTP_URL: 'smtps://user:pass@smtp.example.com:465', PUBLIC_URL: 'https://api.example.com/' },
    );
    expect(email).toMatchObject({ from: 'app@example.com', projectName: 'Shop', verification: 'required', emailSignIn: true, publicUrl: 'https://api.example.com', siteUrl: 'https://shop.example.com/auth' });
    expect(email.templatesDir).toMatch(/mails$/);
  });

  it('refuses what would fail later, naming the setting', () => {
    expect(() => withConfig({}, { SMTP_URL: 'smtp://smtp.example.com' })).toThrow(/email.*from/);
    expect(() => withConfig({ email: { from: 'a@b.test' } }, { SMTP_URL: 'http://smtp.example.com' })).toThrow(/SMTP_URL/);
    expect(() => withConfig({ auth: { emailVerification: 'sometimes' } })).toThrow(/auth.emailVerification/);
    expect(() => withConfig({ email: { from: 'not an address' } })).toThrow(/email.from/);
    expect(() => withConfig({ email: { from: 'App <a@b.test>\r\nBcc: x@y.test' } })).toThrow(/email.from/);
    expect(withConfig({ email: { from: 'Shop <hello@shop.example>' } }).email.from).toBe('Shop <hello@shop.example>');
    expect(() => withConfig({ auth: { emailSignIn: 'yes' } })).toThrow(/auth.emailSignIn/);
    expect(() => withConfig({ auth: { sitURL: 'x' } })).toThrow(/auth.sitURL/);
    expect(() => withConfig({ auth: { siteUrl: 'javascript:alert(1)' } })).toThrow(/siteUrl/);
    expect(() => withConfig({ auth: { redirectUrls: ['https://a.test/x*'] } })).toThrow(/redirectUrls/);
    expect(() => withConfig({ email: { from: 'a@b.test' } }, { SMTP_URL: 'smtp://h', NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) })).toThrow(/PUBLIC_URL/);
  });
});
