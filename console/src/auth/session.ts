import { useSyncExternalStore } from 'react';
import { isApiError, isMfaPending, isNetworkError, type AuthUser, type Credentials, type MfaPending, type MfaProof, type Session } from '@basalt/client';
import { client } from '../api';
import { describeError } from '../errors';
import { absoluteHref, hrefOf } from '../router';
import { CODE_SPENT, forgetProviderReturn, isSpentCode, providerErrorText, providerLanding } from './providerReturn';

/**
 * Who is using the console. Kept outside React (an external store) because it changes from places that are not
 * components: the client's own session events (refresh refused, sign-out in another tab) and the query cache's 401s.
 */
export type AuthState =
  | { status: 'checking' }
  | { status: 'unreachable'; message: string }
  // `mfaToken`: a provider's sign-in came back needing the second factor, which the sign-in card asks for.
  | { status: 'signed-out'; notice?: string; mfaToken?: string }
  | { status: 'signed-in'; user: AuthUser };

export const MEMBER_REFUSED = 'Only the project owner can use the console. You have been signed out.';
// One message for every way a session ends unasked (expired, refused refresh, signed out in another tab): the
// client's events cannot tell them apart, and the remedy is the same.
export const SESSION_EXPIRED = 'Your session has ended. Sign in again.';

let state: AuthState = { status: 'checking' };
const listeners = new Set<() => void>();
const signOutListeners = new Set<() => void>();

function setState(next: AuthState): void {
  const wasSignedIn = state.status === 'signed-in';
  state = next;
  // Before React hears of it: the owner's data is gone by the time the sign-in screen renders.
  if (wasSignedIn && next.status !== 'signed-in') signOutListeners.forEach((listener) => listener());
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function useAuth(): AuthState {
  return useSyncExternalStore(subscribe, () => state);
}

/** Called (synchronously, before the screens change) whenever the owner stops being signed in. */
export function onSignedOut(listener: () => void): () => void {
  signOutListeners.add(listener);
  return () => void signOutListeners.delete(listener);
}

async function refuseMember(): Promise<void> {
  // The member's tokens must not linger in this browser: signing out ends their sessions on the server too.
  await client.auth.signOut().catch(() => undefined);
  setState({ status: 'signed-out', notice: MEMBER_REFUSED });
}

/** The owner is in; a member is refused and signed out again. */
async function adopt(session: Session): Promise<void> {
  if (session.user.role !== 'owner') await refuseMember();
  else setState({ status: 'signed-in', user: session.user });
}

/**
 * Spends the one-time code a provider's sign-in handed back (`?code=`). Done: the state is set (signed in, the second
 * step, or unreachable with the code kept for "Try again"); otherwise why it failed, and the stored session decides.
 */
async function exchangeProviderCode(code: string): Promise<{ done: true } | { done: false; notice: string }> {
  let result: Session | MfaPending;
  try {
    result = await client.auth.exchangeCode(code);
  } catch (error) {
    if (isNetworkError(error)) {
      setState({ status: 'unreachable', message: describeError(error) });
      return { done: true };
    }
    // Any answer of the server has spent or refused the code: a reload must not offer it again. The client refuses
    // before asking when this browser keeps no PKCE verifier (the sign-in began in another browser): the same remedy.
    forgetProviderReturn();
    return { done: false, notice: isSpentCode(error) || !isApiError(error) ? CODE_SPENT : describeError(error) };
  }
  forgetProviderReturn();
  if (isMfaPending(result)) setState({ status: 'signed-out', mfaToken: result.mfaToken });
  else await adopt(result);
  return { done: true };
}

/**
 * Reads the stored session at start-up (refreshing it if due), after finishing a provider's sign-in when the address
 * carries its answer (`?code=`, or `?error=` outside the Account screen, which reads its own link's answers).
 */
export async function restoreSession(): Promise<void> {
  setState({ status: 'checking' });
  const landing = providerLanding(window.location.href, hrefOf('account'));
  let notice: string | undefined;
  if (landing?.purpose === 'sign-in' && 'code' in landing) {
    const exchanged = await exchangeProviderCode(landing.code);
    if (exchanged.done) return;
    notice = exchanged.notice;
  } else if (landing?.purpose === 'sign-in' && 'error' in landing) {
    forgetProviderReturn();
    notice = providerErrorText(landing.error, 'sign-in');
  }
  try {
    const session = await client.auth.getSession();
    if (!session) setState({ status: 'signed-out', notice });
    else await adopt(session);
  } catch (error) {
    // A refused refresh has already signed the client out; only a missing network leaves the session in doubt.
    if (isNetworkError(error)) setState({ status: 'unreachable', message: describeError(error) });
    else setState({ status: 'signed-out', notice: notice ?? SESSION_EXPIRED });
  }
}

/**
 * Signs in with the password: the owner is in, a member is refused and signed out again. An account with a second
 * factor on answers its step (nothing stored yet) for `answerSecondFactor`. Errors (wrong password, unreachable) are
 * the caller's to show.
 */
export async function signIn(credentials: Credentials): Promise<MfaPending | null> {
  const result = await client.auth.signIn(credentials);
  if (isMfaPending(result)) return result;
  await adopt(result);
  return null;
}

/** The sign-in's second step: the authenticator app's code or a recovery code; a wrong one is 400 naming its field. */
export async function answerSecondFactor(mfaToken: string, proof: MfaProof): Promise<void> {
  await adopt(await client.auth.mfa.challenge(mfaToken, proof));
}

/** Leaves for the provider's sign-in page; the browser comes back to the console with `?code=` or `?error=`. */
export async function signInWithProvider(provider: string): Promise<void> {
  await client.auth.signInWithProvider(provider, { redirectTo: absoluteHref('') });
}

/** Creates the project's first account, which the server makes its owner. */
export async function createOwner(credentials: Credentials): Promise<void> {
  const session = await client.auth.signUp(credentials);
  // Someone else may have become the owner a moment earlier; this account is then a member.
  if (session.user.role !== 'owner') await refuseMember();
  else setState({ status: 'signed-in', user: session.user });
}

export async function signOut(): Promise<void> {
  setState({ status: 'signed-out' });
  // Locally signed out even when the server cannot be told; nothing more the owner can do about it here.
  await client.auth.signOut().catch(() => undefined);
}

/** A request answered 401 while signed in: the session is gone (revoked, expired beyond refresh). */
export function expireSession(): void {
  if (state.status !== 'signed-in') return;
  setState({ status: 'signed-out', notice: SESSION_EXPIRED });
  void client.auth.signOut().catch(() => undefined);
}

// The client reports sessions that end or start outside this tab's control: a refused refresh, another tab.
client.auth.onChange((event, session) => {
  if (event === 'signed_out' && state.status === 'signed-in') setState({ status: 'signed-out', notice: SESSION_EXPIRED });
  if (event === 'signed_in' && session?.user.role === 'owner' && state.status !== 'signed-in') {
    setState({ status: 'signed-in', user: session.user });
  }
});
