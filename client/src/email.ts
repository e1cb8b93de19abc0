import { EMAIL_LINK_KINDS, type AuthUser, type Credentials, type EmailLinkKind, type TokenPair } from '@basalt/contract';

/**
 * What the email routes take and answer, as the client shapes them, and the pure helpers an app needs around them:
 * reading a mail's link (`#type=...&token=...`) and making the PKCE pair of a sign-in link.
 */

/** `signUp`: the credentials, and optionally the user's language (BCP 47) for the mails the account gets. */
export type SignUpInput = Credentials & { locale?: string };

/**
 * What `signUp` answers when the project requires a verified address (`auth.emailVerification: "required"`): the
 * account exists, a verification mail is on its way, and nobody is signed in until the address is proven with
 * `auth.verify`. Tell it from a session with `'verificationRequired' in result` or `!result.accessToken`.
 */
export interface PendingSignUp {
  user: AuthUser;
  verificationRequired: true;
  accessToken?: undefined;
  refreshToken?: undefined;
  expiresAt?: undefined;
}

/** Where a mail's link should lead after it is used, and the language of the mail. */
export interface MailOptions {
  /** Must match the project's `auth.redirectUrls` (else 400 naming `redirectTo`). */
  redirectTo?: string;
  /** BCP 47 (`pt-BR`); else the browser's `Accept-Language`, else the account's, else `en`. */
  locale?: string;
}

/** `signInWithEmail`: `codeChallenge` (from `createPkcePair`) lets the link hand a one-time code to `redirectTo`. */
export interface EmailSignInOptions extends MailOptions {
  codeChallenge?: string;
}

/** `changeEmail`: the account's password, or for a passwordless account a fresh code mailed to it. */
export type EmailChangeProof = ({ password: string; code?: undefined } | { code: string; password?: undefined }) & MailOptions;

/** A mail's link, read from its fragment: which kind of mail, its token, and where to go once it is used. */
export interface EmailLink {
  type: EmailLinkKind;
  token: string;
  redirectTo: string | null;
}

export function isTokenPair(value: unknown): value is TokenPair {
  const pair = value as Partial<TokenPair> | null;
  return typeof pair?.accessToken === 'string' && typeof pair.refreshToken === 'string';
}

/**
 * Reads a Basalt mail link: a whole URL (`https://app.example/auth/confirm#type=verify&token=...`), a fragment
 * (`location.hash`) or the fragment's text without `#`. Null when it is not one (no token, an unknown type), so an app
 * can call it on every page load. The token is then spent by `verify`, `reset`, `verifyEmailCode` or
 * `confirmEmailChange` according to `type`: opening a link never spends it.
 */
export function parseEmailLink(value: string): EmailLink | null {
  const hashAt = value.indexOf('#');
  const fragment = hashAt >= 0 ? value.slice(hashAt + 1) : value.includes('://') ? '' : value;
  const params = new URLSearchParams(fragment);
  const type = params.get('type');
  const token = params.get('token');
  if (!token || !(EMAIL_LINK_KINDS as readonly (string | null)[]).includes(type)) return null;
  return { type: type as EmailLinkKind, token, redirectTo: params.get('redirectTo') || null };
}

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function webCrypto(): Crypto {
  const crypto = (globalThis as { crypto?: Crypto }).crypto;
  if (!crypto?.subtle) throw new TypeError('PKCE needs Web Crypto (crypto.subtle): a secure context (https) or Node 20+');
  return crypto;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The S256 challenge of a PKCE verifier (RFC 7636): base64url(SHA-256(verifier)), 43 characters. */
export async function codeChallengeFor(codeVerifier: string): Promise<string> {
  if (!VERIFIER.test(codeVerifier)) throw new TypeError('a code verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
  const digest = await webCrypto().subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  return base64Url(new Uint8Array(digest));
}

/**
 * A fresh PKCE pair for a sign-in link: send `codeChallenge` with `signInWithEmail`, keep `codeVerifier` (e.g. in
 * sessionStorage) until the link comes back to `redirectTo?code=...`, then `exchangeCode(code, codeVerifier)`.
 */
export async function createPkcePair(): Promise<{ codeVerifier: string; codeChallenge: string }> {
  const codeVerifier = base64Url(webCrypto().getRandomValues(new Uint8Array(32)));
  return { codeVerifier, codeChallenge: await codeChallengeFor(codeVerifier) };
}
