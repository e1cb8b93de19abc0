import { isApiError, parseProviderReturn } from '@basalt/client';

/**
 * What an identity provider's round trip leaves in the console's address when the browser comes back: `?code=` (a
 * sign-in's one-time code, for `exchangeCode`), `?linked=<provider>` (the Account screen linked one), or `?error=<CODE>`.
 * The console reads it once and then takes it out of the address, so a reload neither spends the code again nor repeats
 * the message.
 */

/** Why the provider was visited: to sign in (the sign-in card), or to link an identity (the Account screen). */
export type ProviderPurpose = 'sign-in' | 'link';

export type ProviderLanding =
  | { purpose: 'sign-in'; code: string }
  | { purpose: 'link'; linked: string }
  | { purpose: ProviderPurpose; error: string };

/**
 * What the console does with the provider's answer in `href`: a code is a sign-in's (whatever the path), `linked` a
 * link's, and an error belongs to the link when the browser came back to the Account screen (`accountPath`, where
 * links send it) and to a sign-in anywhere else. Null when the address carries no answer.
 */
export function providerLanding(href: string, accountPath: string): ProviderLanding | null {
  const answer = parseProviderReturn(href);
  if (!answer) return null;
  if ('code' in answer) return { purpose: 'sign-in', code: answer.code };
  if ('linked' in answer) return { purpose: 'link', linked: answer.linked };
  const path = new URL(href).pathname.replace(/\/+$/, '');
  return { purpose: path === accountPath.replace(/\/+$/, '') ? 'link' : 'sign-in', error: answer.error };
}

// `error_description` and `state` are what a provider may add when it answers an error itself.
const RETURN_PARAMETERS = ['code', 'linked', 'error', 'error_description', 'state'] as const;

/** The address without the provider's answer (path, other parameters and fragment kept), for `history.replaceState`. */
export function withoutProviderReturn(href: string): string {
  const url = new URL(href);
  for (const name of RETURN_PARAMETERS) url.searchParams.delete(name);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Takes the provider's answer out of the browser's address, without a new history entry. */
export function forgetProviderReturn(): void {
  window.history.replaceState(window.history.state, '', withoutProviderReturn(window.location.href));
}

/** A provider's `?error=` in words a person can act on. */
export function providerErrorText(error: string, purpose: ProviderPurpose): string {
  switch (error) {
    case 'ACCOUNT_EXISTS':
      return purpose === 'sign-in'
        ? 'An account with this email already exists: sign in with its password, then link the provider from your account screen.'
        : 'This identity already belongs to another account of this project, so it cannot be linked to yours.';
    case 'SIGNUP_DISABLED':
      return 'No account uses this identity, and sign-up is disabled (signupEnabled: false), so none was created. Sign in with your password, then link the provider from your account screen.';
    case 'EMAIL_REQUIRED':
      return 'The provider did not share an email address, which an account needs. Allow it to share your email, then try again.';
    case 'EMAIL_NOT_VERIFIED':
      return 'The provider does not vouch for this email address, and this project requires a verified one: sign up with the address instead.';
    case 'CONFLICT':
      return 'Your account already has an identity of this provider: unlink it first.';
    case 'PROVIDER_ERROR':
      return 'The provider’s answer could not be used (it failed or did not pass the checks). Try again; if it keeps failing, check its settings in config.json and the server’s log.';
    case 'access_denied':
      return purpose === 'sign-in' ? 'The sign-in was cancelled at the provider.' : 'Linking was cancelled at the provider.';
    default:
      return `The provider ${purpose === 'sign-in' ? 'sign-in' : 'link'} failed (${error}). Try again.`;
  }
}

export const CODE_SPENT = 'This sign-in was already completed, has expired, or was started in another browser: sign in again.';

/** An exchange refused for its code (unknown, used, expired, or a verifier from another browser): 400 naming it. */
export function isSpentCode(error: unknown): boolean {
  if (!isApiError(error) || error.status !== 400) return false;
  const field = error.details?.field;
  return field === 'code' || field === 'codeVerifier';
}
