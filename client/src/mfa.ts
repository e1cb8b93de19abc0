import type { AuthResult, DataResponse, MfaStep, TotpEnabled, TotpEnrollment } from '@basalt/contract';
import type { SessionManager } from './session/sessionManager.js';
import type { Session } from './session/session.js';
import type { Send } from './transport.js';

/**
 * What `signIn`, `verifyEmailCode` and `exchangeCode` answer when the account has a second factor (TOTP) on: the
 * first proof was right, nothing is stored yet, and `auth.mfa.challenge(mfaToken, { code })` (or `{ recoveryCode }`)
 * finishes the sign-in within 5 minutes. Tell it from a session with `isMfaPending(result)`, `'mfaRequired' in result`
 * or `!result.accessToken`.
 */
export interface MfaPending extends MfaStep {
  user?: undefined;
  accessToken?: undefined;
  refreshToken?: undefined;
  expiresAt?: undefined;
}

/** `auth.mfa.challenge`: the authenticator app's current 6-digit code, or one of the recovery codes (each works once). */
export type MfaProof = { code: string; recoveryCode?: undefined } | { recoveryCode: string; code?: undefined };

/** What a sign-in route answers: tokens, or the second step. */
export type SignInAnswer = AuthResult | MfaStep;

export function isMfaPending(value: unknown): value is MfaPending {
  const step = value as Partial<MfaStep> | null;
  return step?.mfaRequired === true && typeof step.mfaToken === 'string';
}

/**
 * The signed-in user's second factor (`/auth/mfa/*`), and the second step of a sign-in. With a factor on, a session
 * that has not proven it (one opened before the factor was turned on) gets 403 MFA_REQUIRED on `newRecoveryCodes`,
 * `remove`, API keys, the password, the email and deleting the account: sign in again, through `challenge`.
 */
export class MfaClient {
  constructor(
    private readonly manager: SessionManager,
    /** With the caller's credentials. */
    private readonly send: Send,
    /** Without credentials (the sign-in's second step). */
    private readonly sendPublic: Send,
  ) {}

  /**
   * A new secret for an authenticator app: `uri` (otpauth://) for a QR code, `secret` (base32) to type in. Nothing is
   * on until `verify` gets its first code; asking again replaces the pending secret. With a factor on: 409 CONFLICT.
   */
  async enroll(): Promise<TotpEnrollment> {
    return (await this.send<DataResponse<TotpEnrollment>>({ method: 'POST', path: '/auth/mfa/totp' })).data;
  }

  /**
   * Turns the factor on with the app's current code (a wrong one is 400 naming `code`). Every other session of the
   * account ends; this one goes on with new tokens that prove the factor. The ten recovery codes are shown this once.
   */
  async verify(code: string): Promise<{ recoveryCodes: string[] }> {
    const { data } = await this.send<DataResponse<TotpEnabled>>({ method: 'POST', path: '/auth/mfa/totp/verify', body: { code } });
    await this.manager.replaceTokens({ accessToken: data.accessToken, refreshToken: data.refreshToken });
    return { recoveryCodes: data.recoveryCodes };
  }

  /**
   * Finishes a sign-in that answered `MfaPending`, and stores the session. A wrong or used code is 400 naming `code`
   * (or `recoveryCode`); an unknown, used or expired `mfaToken`, or one after its 5th wrong code, 400 naming `mfaToken`.
   */
  async challenge(mfaToken: string, proof: MfaProof): Promise<Session> {
    const body = proof.code !== undefined ? { mfaToken, code: proof.code } : { mfaToken, recoveryCode: proof.recoveryCode };
    const result = await this.sendPublic<DataResponse<AuthResult>>({ method: 'POST', path: '/auth/mfa/challenge', body });
    return this.manager.establish(result.data);
  }

  /** Ten new recovery codes; the old ones stop working. No factor on: 404. */
  async newRecoveryCodes(): Promise<{ recoveryCodes: string[] }> {
    return (await this.send<DataResponse<{ recoveryCodes: string[] }>>({ method: 'POST', path: '/auth/mfa/recovery-codes' })).data;
  }

  /** Turns the factor off (sign-ins answer tokens again). No factor on: 404. */
  async remove(): Promise<void> {
    await this.send({ method: 'DELETE', path: '/auth/mfa/totp' });
  }
}
