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
