import { describe, expect, it } from 'vitest';
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
