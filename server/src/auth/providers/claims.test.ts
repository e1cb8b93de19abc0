import { describe, expect, it } from 'vitest';
import { expectedIssuers, identityOf } from './claims.js';
import type { ReadyProvider } from './registry.js';
import { parseProviders } from './settings.js';

const [generic, microsoft, google] = parseProviders(
  { company: { issuer: 'https://id.example.com', clientId: 'c' }, microsoft: { clientId: 'm' }, google: { clientId: 'g' } },
  {},
  'config.json',
);
const ready = (config: typeof generic, issuer: string) => ({ config, metadata: { issuer }, client: async () => undefined }) as unknown as ReadyProvider;

describe('what an id token says', () => {
  it('counts an email verified only on email_verified true or "true"; microsoft only on xms_edov', () => {
    expect(identityOf(generic!, { sub: 's', email: 'A@Example.com', email_verified: true })).toEqual({ subject: 's', email: 'a@example.com', emailVerified: true });
    expect(identityOf(generic!, { sub: 's', email: 'a@example.com', email_verified: 'true' }).emailVerified).toBe(true);
    expect(identityOf(generic!, { sub: 's', email: 'a@example.com', email_verified: 'yes' }).emailVerified).toBe(false);
    expect(identityOf(generic!, { sub: 's', email: 'a@example.com' }).emailVerified).toBe(false);
    expect(identityOf(microsoft!, { sub: 's', email: 'a@example.com', email_verified: true }).emailVerified).toBe(false);
    expect(identityOf(microsoft!, { sub: 's', email: 'a@example.com', xms_edov: true }).emailVerified).toBe(true);
  });

  it('drops an email that is not one (it cannot make or match an account)', () => {
    expect(identityOf(generic!, { sub: 's', email: 'not an email', email_verified: true })).toEqual({ subject: 's', email: null, emailVerified: false });
    expect(identityOf(generic!, { sub: 's', email: `${'a'.repeat(250)}@example.com`, email_verified: true }).email).toBeNull();
    expect(identityOf(generic!, { sub: 's', email: 7 }).email).toBeNull();
  });

  it('expects the discovered issuer; google either spelling; microsoft its tenant from tid, a well-formed one only', () => {
    expect(expectedIssuers(ready(generic!, 'https://id.example.com'), {})).toEqual(['https://id.example.com']);
    expect(expectedIssuers(ready(google!, 'https://accounts.google.com'), {})).toEqual(['https://accounts.google.com', 'accounts.google.com']);
    const entra = ready(microsoft!, 'https://login.microsoftonline.com/{tenantid}/v2.0');
    const tid = '9188040d-6c67-4c5b-b112-36a304b66dad';
    expect(expectedIssuers(entra, { tid })).toEqual([`https://login.microsoftonline.com/${tid}/v2.0`]);
    expect(expectedIssuers(entra, { tid: '../evil' })).toEqual([]);
    expect(expectedIssuers(entra, {})).toEqual([]);
  });
});
