import type { AuthResult, AuthSettings, Credentials, DataResponse, Profile } from '@basalt/contract';
import { ApiError } from './errors.js';
import type { AuthChangeListener, SessionManager } from './refresh.js';
import type { Session } from './session.js';
import type { Send } from './transport.js';

/** Accounts and the session: sign-up, sign-in, sign-out, the profile, and notifications when the session changes. */
export class AuthClient {
  constructor(
    private readonly sessions: SessionManager,
    /** With the caller's credentials (sign-out, profile). */
    private readonly send: Send,
    /** Without credentials (sign-up, sign-in, settings). */
    private readonly sendPublic: Send,
  ) {}

  /** Creates an account and signs it in. The project's first account becomes its owner. */
  async signUp(credentials: Credentials): Promise<Session> {
    const result = await this.sendPublic<DataResponse<AuthResult>>({ method: 'POST', path: '/auth/signup', body: credentials });
    return this.sessions.establish(result.data);
  }

  async signIn(credentials: Credentials): Promise<Session> {
    const result = await this.sendPublic<DataResponse<AuthResult>>({ method: 'POST', path: '/auth/signin', body: credentials });
    return this.sessions.establish(result.data);
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
    await this.sessions.forget();
    if (failure && !(failure instanceof ApiError && failure.status === 401)) throw failure;
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
      return await this.sessions.getSession();
    } catch (error) {
      if (error instanceof ApiError && !this.sessions.current()) return null;
      throw error;
    }
  }

  /**
   * Calls `listener` with `signed_in`, `refreshed` or `signed_out` whenever the session changes, in this tab or
   * (through storage) another. Returns the function that unsubscribes.
   */
  onChange(listener: AuthChangeListener): () => void {
    return this.sessions.onChange(listener);
  }

  /** Whether sign-up is open and whether the project has an owner yet (what a sign-in screen needs). */
  async settings(): Promise<AuthSettings> {
    return (await this.sendPublic<DataResponse<AuthSettings>>({ method: 'GET', path: '/auth/settings' })).data;
  }

  private async currentSession(): Promise<Session | null> {
    await this.sessions.ready;
    return this.sessions.current();
  }
}
