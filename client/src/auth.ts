import type {
  AuthResult,
  AuthSettings,
  AuthUser,
  Credentials,
  DataResponse,
  EmailProof,
  Profile,
  SentResult,
  SessionInfo,
  TokenPair,
  VerifyResult,
} from '@basalt/contract';
import { isTokenPair, type EmailChangeProof, type EmailSignInOptions, type MailOptions, type PendingSignUp, type SignUpInput } from './email.js';
import { ApiError } from './errors.js';
import { segment } from './http.js';
import { KeysClient } from './keys.js';
import { MfaClient, isMfaPending, type MfaPending, type SignInAnswer } from './mfa.js';
import type { ProviderRedirectOptions, ProviderRedirects } from './providers.js';
import { decodeJwtPayload } from './session/accessToken.js';
import type { AuthChangeListener, SessionManager } from './session/sessionManager.js';
import type { Session } from './session/session.js';
import { isTokenExpired, type Send } from './transport.js';

/** Accounts and the session: sign-up, sign-in, sign-out, the profile, and notifications when the session changes. */
export class AuthClient {
  /** The signed-in user's API keys. */
  readonly keys: KeysClient;
  /** The second factor (TOTP): turning it on and off, recovery codes, and the sign-in's second step. */
  readonly mfa: MfaClient;

  constructor(
    private readonly manager: SessionManager,
    /** With the caller's credentials (sign-out, profile). */
    private readonly send: Send,
    /** Without credentials (sign-up, sign-in, settings). */
    private readonly sendPublic: Send,
    /** With one given access token: sign-out's, sent after the session was forgotten here. */
    private readonly sendAs: (accessToken: string) => Send,
    /** The provider redirect flow's PKCE verifiers, kept in the client's storage adapter. */
    private readonly redirects?: ProviderRedirects,
  ) {
    this.keys = new KeysClient(send);
    this.mfa = new MfaClient(manager, send, sendPublic);
  }

  /**
   * Creates an account and signs it in. The project's first account becomes its owner. When the project requires a
   * verified address (`auth.emailVerification: "required"`), nobody is signed in: the answer is the new user with
   * `verificationRequired: true`, and the verification mail's link or code (`verify`) signs it in.
   */
  async signUp(credentials: SignUpInput): Promise<Session | PendingSignUp> {
    const result = await this.sendPublic<DataResponse<AuthResult | { user: AuthUser }>>({ method: 'POST', path: '/auth/signup', body: credentials });
    if (!isTokenPair(result.data)) return { user: result.data.user, verificationRequired: true };
    return this.manager.establish(result.data);
  }

  /**
   * Signs in with the password. When the account has a second factor on, nobody is signed in yet: the answer is
   * `{ mfaRequired: true, mfaToken }` (`MfaPending`), for `mfa.challenge` with the app's code or a recovery code.
   */
  async signIn(credentials: Credentials): Promise<Session | MfaPending> {
    return this.signedIn('/auth/signin', credentials);
  }

  /**
   * Forgets the tokens here and in every tab, then ends every session of the user on the server with the access token
   * the session had (an expired one is renewed once by its refresh token, the new pair never kept). Local first, so a
   * reload or a closed tab while the server is being told cannot keep the session. When the server cannot be told
   * (offline), the error is still thrown after the local sign-out, because the refresh token stays valid on the server
   * until it expires. A 401 (the session had already ended) is not an error.
   */
  async signOut(): Promise<void> {
    const session = await this.currentSession();
    if (!session) return;
    await this.manager.forget();
    try {
      await this.endOnServer(session);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
  }

  /** The user's signed-in devices, the most recently used first; `current` marks this one. */
  async sessions(): Promise<SessionInfo[]> {
    return (await this.send<DataResponse<SessionInfo[]>>({ method: 'GET', path: '/auth/sessions' })).data;
  }

  /** Ends one device's session (its refresh token stops working); ending this device's own signs this client out. */
  async signOutSession(id: string): Promise<void> {
    const current = this.manager.current();
    await this.send({ method: 'DELETE', path: `/auth/sessions/${segment(id)}` });
    if (current && decodeJwtPayload(current.accessToken)?.sid === id) await this.manager.forget();
  }

  /**
   * Changes the password: every other session of the user ends, this one goes on with new tokens. A wrong current
   * password is 400 VALIDATION_ERROR naming `currentPassword` (and counts as a failed sign-in).
   */
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    const result = await this.send<DataResponse<TokenPair>>({ method: 'POST', path: '/auth/password', body: { currentPassword, newPassword } });
    await this.manager.replaceTokens(result.data);
  }

  /** `reset({ token }, newPassword)`, kept for the owner's reset link (`admin.users.resetLink`). */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    await this.reset({ token }, newPassword);
  }

  /**
   * Mails the address a link and a code proving it (again). The answer is the same whether or not the address has an
   * account; too many mails to one address or from one client are 429 RATE_LIMITED with `retryAfter`.
   */
  async sendVerification(email: string, options: MailOptions = {}): Promise<SentResult> {
    return this.mailed('/auth/verify/send', { email, ...options });
  }

  /**
   * Proves an address with a verification mail's link token or its code. When the project requires verified
   * addresses, this also signs the account in (`session`); a client already signed in as that account gets new
   * tokens saying `verified`. An unknown, used or expired token is 400 naming `token`, a wrong code 400 naming `code`.
   */
  async verify(proof: EmailProof): Promise<{ user: VerifyResult['user']; session: Session | null }> {
    const { data } = await this.sendPublic<DataResponse<VerifyResult>>({ method: 'POST', path: '/auth/verify', body: proof });
    if (isTokenPair(data)) return { user: data.user, session: await this.manager.establish(data) };
    const current = await this.currentSession();
    // Best effort: the access token's `verified` otherwise catches up at the next refresh.
    if (current?.user.id === data.user.id) await this.manager.refresh(current).catch(() => null);
    return { user: data.user, session: null };
  }

  /** Mails a password-recovery link and code to the address (the same answer whether or not it has an account). */
  async recover(email: string, options: MailOptions = {}): Promise<SentResult> {
    return this.mailed('/auth/recover', { email, ...options });
  }

  /**
   * Sets a new password with a recovery mail's token or code, an invite's token, or the owner's reset link token:
   * every session of that account ends (sign in again). Needs nobody signed in.
   */
  async reset(proof: EmailProof, newPassword: string): Promise<void> {
    await this.sendPublic({ method: 'POST', path: '/auth/reset', body: { ...proof, newPassword } });
  }

  /**
   * Mails a sign-in link and code (when the project has `auth.emailSignIn`; else 404). A new address gets an account
   * if sign-ups are open. With `redirectTo` and a PKCE `codeChallenge` (`createPkcePair`), the link's page sends the
   * browser to `redirectTo?code=...` for `exchangeCode`; the code in the mail works with `verifyEmailCode`.
   */
  async signInWithEmail(email: string, options: EmailSignInOptions = {}): Promise<SentResult> {
    return this.mailed('/auth/otp', { email, ...options });
  }

  /** Signs in with a sign-in mail's link token or its code; `MfaPending` as `signIn` when the account has a factor on. */
  async verifyEmailCode(proof: EmailProof): Promise<Session | MfaPending> {
    return this.signedIn('/auth/otp/verify', proof);
  }

  /**
   * Signs in with the one-time code a sign-in link handed to `redirectTo`, and the PKCE verifier its challenge came
   * from; `MfaPending` as `signIn` when the account has a factor on.
   */
  async exchangeCode(code: string, codeVerifier?: string): Promise<Session | MfaPending> {
    const verifier = codeVerifier ?? (await this.redirects?.takeVerifier());
    if (!verifier) throw new TypeError('exchangeCode needs the PKCE verifier: none is stored (was signInWithProvider called with this client?)');
    return this.signedIn('/auth/oauth/exchange', { code, codeVerifier: verifier });
  }

  /**
   * Signs in with an identity provider (`auth.providers`): the browser goes to the provider (unless `navigate: false`:
   * the URL is answered) and comes back to `redirectTo?code=...` for `exchangeCode(code)`, whose PKCE verifier waits in
   * this client's storage; or `?error=ACCOUNT_EXISTS` and the like (`parseProviderReturn`).
   */
  async signInWithProvider(provider: string, options: ProviderRedirectOptions): Promise<{ url: string }> {
    return this.providerRedirects().signInUrl(provider, options);
  }

  /** Signs in with an id token a native app got from the provider's SDK, and the nonce it gave the provider. */
  async signInWithIdToken(provider: string, input: { idToken: string; nonce: string }): Promise<Session | MfaPending> {
    return this.signedIn(`/auth/oauth/${segment(provider)}/token`, input);
  }

  /** Links a provider to the signed-in account: the browser comes back to `redirectTo?linked=<provider>` (or `?error=`). */
  async linkIdentity(provider: string, options: ProviderRedirectOptions): Promise<{ url: string }> {
    return this.providerRedirects().linkUrl(provider, options);
  }

  /** Unlinks a provider from the signed-in account; refused (400) when it is the account's last way in. */
  async unlinkIdentity(provider: string): Promise<void> {
    await this.send({ method: 'DELETE', path: `/auth/identities/${segment(provider)}` });
  }

  /**
   * Starts changing the signed-in account's address, proven by its password (or, without one, a fresh mailed code):
   * the new address gets a confirmation link and code (`confirmEmailChange`), the old one a notice.
   */
  async changeEmail(newEmail: string, proof: EmailChangeProof): Promise<SentResult> {
    return (await this.send<DataResponse<SentResult>>({ method: 'POST', path: '/auth/email', body: { newEmail, ...proof } })).data;
  }

  /**
   * Switches the address with the confirmation's link token, or the new address and its code. Needs nobody signed
   * in; a client signed in as that account keeps its session, with the new address.
   */
  async confirmEmailChange(proof: EmailProof): Promise<VerifyResult['user']> {
    const { data } = await this.sendPublic<DataResponse<VerifyResult>>({ method: 'POST', path: '/auth/email/confirm', body: proof });
    await this.manager.updateUser(data.user);
    return data.user;
  }

  /** Deletes the signed-in account (confirmed by its password), then signs out here. The owner's cannot be deleted. */
  async deleteAccount(password: string): Promise<AuthUser> {
    const result = await this.send<DataResponse<AuthUser>>({ method: 'DELETE', path: '/auth/me', body: { password } });
    await this.manager.forget();
    return result.data;
  }

  /** The signed-in user's profile; 401 UNAUTHORIZED when nobody is signed in. */
  async me(): Promise<Profile> {
    return (await this.send<DataResponse<Profile>>({ method: 'GET', path: '/auth/me' })).data;
  }

  /**
   * The current session, refreshed first if its access token is about to expire; null when signed out, including
   * when the stored session turns out to have ended (the refresh is refused, and `onChange` reports `signed_out`).
   * Rejects only when the token has expired and could not be refreshed for now (offline, server unavailable).
   */
  async getSession(): Promise<Session | null> {
    try {
      return await this.manager.getSession();
    } catch (error) {
      if (error instanceof ApiError && !this.manager.current()) return null;
      throw error;
    }
  }

  /**
   * Calls `listener` with `signed_in`, `refreshed` or `signed_out` whenever the session changes, in this tab or
   * (through storage) another. Returns the function that unsubscribes.
   */
  onChange(listener: AuthChangeListener): () => void {
    return this.manager.onChange(listener);
  }

  /** Whether sign-up is open and whether the project has an owner yet (what a sign-in screen needs). */
  async settings(): Promise<AuthSettings> {
    return (await this.sendPublic<DataResponse<AuthSettings>>({ method: 'GET', path: '/auth/settings' })).data;
  }

  /** A way in: the session, stored, or the second step, with nothing stored. */
  private async signedIn(path: string, body: unknown): Promise<Session | MfaPending> {
    const { data } = await this.sendPublic<DataResponse<SignInAnswer>>({ method: 'POST', path, body });
    if (isMfaPending(data)) return { mfaRequired: true, mfaToken: data.mfaToken };
    return this.manager.establish(data as AuthResult);
  }

  private providerRedirects(): ProviderRedirects {
    if (!this.redirects) throw new TypeError('provider sign-in needs a client made by createClient');
    return this.redirects;
  }

  private async mailed(path: string, body: Record<string, unknown>): Promise<SentResult> {
    return (await this.sendPublic<DataResponse<SentResult>>({ method: 'POST', path, body })).data;
  }

  /** `POST /auth/signout` on behalf of a session this client has already forgotten. */
  private async endOnServer(session: Session): Promise<void> {
    const request = { method: 'POST', path: '/auth/signout' } as const;
    try {
      await this.sendAs(session.accessToken)(request);
    } catch (error) {
      if (!isTokenExpired(error)) throw error;
      const renewed = await this.sendPublic<DataResponse<TokenPair>>({ method: 'POST', path: '/auth/refresh', body: { refreshToken: session.refreshToken } });
      await this.sendAs(renewed.data.accessToken)(request);
    }
  }

  private async currentSession(): Promise<Session | null> {
    await this.manager.ready;
    return this.manager.current();
  }
}
