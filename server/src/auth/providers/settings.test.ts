import { describe, expect, it } from 'vitest';
import { parseProviders } from './settings.js';

const env = { GOOGLE_SECRET: 'g-secret', APPLE_KEY: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----' };
const parse = (value: unknown, environment: NodeJS.ProcessEnv = env) => parseProviders(value, environment, 'config.json');

describe('auth.providers', () => {
  it('fills the presets: issuer, scopes and display name; the secret comes from the environment', () => {
    const [google, microsoft, gitlab, apple] = parse({
      google: { clientId: 'g', clientSecretEnv: 'GOOGLE_SECRET' },
      microsoft: { clientId: 'm', tenant: 'contoso.onmicrosoft.com' },
      gitlab: { clientId: 'l', issuer: 'https://gitlab.example.com' },
      apple: { clientId: 'a', teamId: 'T', keyId: 'K', privateKeyEnv: 'APPLE_KEY' },
    });
    expect(google).toMatchObject({ name: 'google', displayName: 'Google', issuer: 'https://accounts.google.com', clientSecret: 'g-secret', scopes: ['openid', 'email', 'profile'], preset: 'google' });
    expect(microsoft).toMatchObject({ issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0', clientSecret: null, preset: 'microsoft' });
    expect(gitlab).toMatchObject({ issuer: 'https://gitlab.example.com', displayName: 'GitLab' });
    expect(apple).toMatchObject({ issuer: 'https://appleid.apple.com', scopes: ['openid', 'email', 'name'], apple: { teamId: 'T', keyId: 'K' } });
    expect(parse({ microsoft: { clientId: 'm' } })[0]!.issuer).toBe('https://login.microsoftonline.com/common/v2.0');
  });

  it('takes any OpenID Connect issuer by name, with audiences and scopes; openid is always asked for', () => {
    const [company] = parse({ company: { issuer: 'https://id.example.com/realms/main', clientId: 'c', scopes: ['email'], audiences: ['ios-app'], displayName: 'Company SSO' } });
    expect(company).toMatchObject({ name: 'company', issuer: 'https://id.example.com/realms/main', scopes: ['openid', 'email'], audiences: ['ios-app'], displayName: 'Company SSO', preset: null });
    expect(parse(undefined)).toEqual([]);
  });

  it.each([
    [{ company: { clientId: 'c' } }, /needs "issuer"/],
    [{ google: { clientId: 'g', clientSecretEnv: 'MISSING' } }, /MISSING, which is not set/],
    [{ google: { clientId: 'g', tenant: 'x' } }, /unknown key "tenant"/],
    [{ company: { issuer: 'http://id.example.com', clientId: 'c' } }, /https URL/],
    [{ company: { issuer: 'https://u:p@id.example.com', clientId: 'c' } }, /plain issuer URL/],
    [{ company: { issuer: 'https://id.example.com', clientId: '' } }, /clientId must be a non-empty string/],
    [{ company: { issuer: 'https://id.example.com', clientId: 'c', scopes: ['a b'] } }, /scopes must be a list/],
    [{ apple: { clientId: 'a', teamId: 'T', keyId: 'K' } }, /privateKeyEnv must be a non-empty string/],
    [{ 'Bad Name': { issuer: 'https://id.example.com', clientId: 'c' } }, /not a provider name/],
    [{ company: 'https://id.example.com' }, /must be an object/],
    [[], /must be an object of providers/],
    [{ exchange: { issuer: 'https://id.example.com', clientId: 'c' } }, /taken by POST \/auth\/oauth\/exchange/],
  ])('stops start-up on %j', (value, message) => {
    expect(() => parse(value)).toThrow(message);
  });

  it('allows plain http for an issuer on this machine only (development and tests)', () => {
    expect(parse({ local: { issuer: 'http://127.0.0.1:9000', clientId: 'c' } })[0]!.issuer).toBe('http://127.0.0.1:9000');
    expect(parse({ local: { issuer: 'http://localhost:9000/', clientId: 'c' } })[0]!.issuer).toBe('http://localhost:9000');
  });
});
