import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import { ApiError, invalidField } from '../../errors.js';
import type { ReadyProvider } from './registry.js';
import type { ProviderConfig } from './settings.js';

/**
 * What Basalt takes from a provider's id token: the subject, and the email with whether the provider vouches for it
 * (API.md, Part 2 in detail: `email_verified: true`, boolean or "true"; the microsoft preset only with `xms_edov`).
 * And the checks of a native app's id token (`POST /auth/oauth/<name>/token`), made here with jose against the
 * provider's published keys: issuer (google's two spellings; microsoft's `{tenantid}` from the token's `tid`),
 * audience (`clientId` or one of `audiences`), expiry, an asymmetric algorithm the provider announces (never `none`
 * or a shared-secret one), and the nonce, raw or as its SHA-256 hex.
 */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX_LENGTH = 254;
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^ES256K$|^EdDSA$|^Ed25519$/;
const CLOCK_TOLERANCE_S = 30;
const yes = (value: unknown) => value === true || value === 'true';

export function identityOf(config: ProviderConfig, claims: JWTPayload): ProviderIdentity {
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  const raw = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  const email = raw.length <= EMAIL_MAX_LENGTH && EMAIL.test(raw) ? raw : null;
  const emailVerified = email !== null && (config.preset === 'microsoft' ? yes(claims.xms_edov) : yes(claims.email_verified));
  return { subject, email, emailVerified };
}

/** The issuers a token of this provider may name. */
export function expectedIssuers(provider: ReadyProvider, claims: JWTPayload): string[] {
  const issuer = provider.metadata.issuer;
  if (provider.config.preset === 'google') return ['https://accounts.google.com', 'accounts.google.com'];
  if (issuer.includes('{tenantid}')) return typeof claims.tid === 'string' && /^[0-9a-f-]{36}$/i.test(claims.tid) ? [issuer.replace('{tenantid}', claims.tid)] : [];
  return [issuer];
}

const keySets = new WeakMap<ReadyProvider, ReturnType<typeof createRemoteJWKSet>>();
const invalidIdToken = (why: string) => invalidField('idToken', `The id token was refused: ${why}`);

export async function verifyNativeIdToken(provider: ReadyProvider, idToken: string, nonce: string): Promise<ProviderIdentity & { expiresAt: number }> {
  const { metadata, config } = provider;
  if (!metadata.jwks_uri) throw invalidIdToken('the provider publishes no keys');
  let claims: JWTPayload;
  try {
    claims = decodeJwt(idToken);
  } catch {
    throw invalidIdToken('it is not a JWT');
  }
  let keys = keySets.get(provider);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: 10_000 });
    keySets.set(provider, keys);
  }
  const announced = metadata.id_token_signing_alg_values_supported ?? ['RS256'];
  try {
    const verified = await jwtVerify(idToken, keys, {
      issuer: expectedIssuers(provider, claims),
      audience: [config.clientId, ...config.audiences],
      algorithms: announced.filter((alg) => ASYMMETRIC.test(alg)),
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    claims = verified.payload;
  } catch (error) {
    const code = (error as { code?: string }).code;
    // The provider's keys could not be had (unreachable, slow, not a key set): its failure, not the app's token.
    if (code === undefined || code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID') {
      throw new ApiError('PROVIDER_ERROR', 'The identity provider\'s signing keys could not be fetched: try again shortly');
    }
    throw invalidIdToken(reasonOf(error));
  }
  const hashed = createHash('sha256').update(nonce).digest('hex');
  if (claims.nonce !== nonce && claims.nonce !== hashed) throw invalidField('nonce', 'The nonce does not match the id token');
  return { ...identityOf(config, claims), expiresAt: claims.exp! };
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'ERR_JWT_EXPIRED') return 'it has expired';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return `its ${(error as { claim?: string }).claim ?? 'claims'} claim is not what this provider issues`;
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED' || code === 'ERR_JOSE_NOT_SUPPORTED') return 'its signing algorithm is not one the provider uses';
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWS_INVALID') return 'its signature is not by the provider’s keys';
  return 'it could not be verified';
}
