import type { DataResponse, VerifyResult } from '@basalt/contract';
import { requestJson } from '../../request';

/**
 * The public endpoints a mail's link ends in, each taking the link's token. Called on the visitor's click only:
 * mail scanners open links, and a GET of the page must never spend a token. No credentials go with them.
 */
const post = async <T>(path: string, body: unknown): Promise<T> => (await requestJson<DataResponse<T>>({ method: 'POST', path, body })).data;

export const confirmByToken = {
  verify: (token: string) => post<VerifyResult>('/auth/verify', { token }),
  emailChange: (token: string) => post<VerifyResult>('/auth/email/confirm', { token }),
  /** Recovery and invitation links both set a password; every session of the account ends. */
  setPassword: (token: string, newPassword: string) => post<{ signedOut: true }>('/auth/reset', { token, newPassword }),
  /** A sign-in link: the one-time code handed to the app at `redirectTo` (which exchanges it with its PKCE verifier). */
  signInCode: (token: string) => post<{ redirectTo: string }>('/auth/otp/code', { token }),
};
