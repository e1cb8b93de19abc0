import type { AuthResult, AuthSettings, AuthUser, Credentials, DataResponse, Profile, SessionInfo, TokenPair } from '@basalt/contract';
import { ApiError } from './errors.js';
import { segment } from './http.js';
import { KeysClient } from './keys.js';
import { decodeJwtPayload } from './session/accessToken.js';
import type { AuthChangeListener, SessionManager } from './session/sessionManager.js';
import type { Session } from './session/session.js';
import type { Send } from './transport.js';

/** Accounts and the session: sign-up, sign-in, sign-out, the profile, and notifications when the session changes. */
export class AuthClient {
  /** The signed-in user's API keys. */
  readonly keys: KeysClient;

  constructor(
    private readonly manager: SessionManager,
    /** With the caller's credentials (sign-out, profile). */
    private readonly send: Send,
    /** Without credentials (sign-up, sign-in, settings). */
    private readonly sendPublic: Send,
  ) {
    this.keys = new KeysClient(send);
  }

  /** Creates an account and signs it in. The project's first account becomes its owner. */
  async signUp(credentials: Credentials): Promise<Session> {
    const result = await this.sendPublic<DataResponse<AuthResult>>({ method: 'POST', path: '/auth/signup', body: credentials });
    return this.manager.establish(result.data);
  }

  async signIn(credentials: Credentials): Promise<Session> {
    const result = await this.sendPublic<DataResponse<AuthResult>>({ method: 'POST', path: '/auth/signin', body: credentials });
    return this.manager.establish(result.data);
  }

  /**
   * Ends every session of the user on the server, then forgets the tokens here and in every tab. The local sign-out
   * happens even when the server cannot be reached; the error is still thrown then, because the refresh token stays
   * valid on the server until it expires. A 401 (the session had already ended) is not an error.
   */
  async signOut(): Promise<void> {
    if (!(await this.currentSession())) return;
    let failure: unknown;
    try {
      await this.send({ method: 'POST', path: '/auth/signout' });
    } catch (error) {
      failure = error;
    }
    await this.manager.forget();
    if (failure && !(failure instanceof ApiError && failure.status === 401)) throw failure;
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

  /**
   * Sets a new password with a reset token (from the owner's reset link): every session of that account ends. Needs
   * nobody signed in; an unknown, used or expired token is 400 naming `token`.
   */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    await this.sendPublic({ method: 'POST', path: '/auth/reset', body: { token, newPassword } });
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

  private async currentSession(): Promise<Session | null> {
    await this.manager.ready;
    return this.manager.current();
  }
}
