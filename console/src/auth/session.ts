import { useSyncExternalStore } from 'react';
import { isMfaPending, isNetworkError, type AuthUser, type Credentials } from '@basalt/client';
import { client } from '../api';
import { describeError } from '../errors';

/**
 * Who is using the console. Kept outside React (an external store) because it changes from places that are not
 * components: the client's own session events (refresh refused, sign-out in another tab) and the query cache's 401s.
 */
export type AuthState =
  | { status: 'checking' }
  | { status: 'unreachable'; message: string }
  | { status: 'signed-out'; notice?: string }
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

/** Reads the stored session at start-up (refreshing it if due). */
export async function restoreSession(): Promise<void> {
  setState({ status: 'checking' });
  try {
    const session = await client.auth.getSession();
    if (!session) setState({ status: 'signed-out' });
    else if (session.user.role !== 'owner') await refuseMember();
    else setState({ status: 'signed-in', user: session.user });
  } catch (error) {
    // A refused refresh has already signed the client out; only a missing network leaves the session in doubt.
    if (isNetworkError(error)) setState({ status: 'unreachable', message: describeError(error) });
    else setState({ status: 'signed-out', notice: SESSION_EXPIRED });
  }
}

/** Signs in; a member is refused and signed out again. Errors (wrong password, unreachable) are the caller's to show. */
export async function signIn(credentials: Credentials): Promise<void> {
  const session = await client.auth.signIn(credentials);
  // The console's step for the second factor comes with the rest of issue 27; nothing was stored.
  if (isMfaPending(session)) throw new Error('This account has a second factor on, and the console cannot ask for its code yet.');
  if (session.user.role !== 'owner') await refuseMember();
  else setState({ status: 'signed-in', user: session.user });
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
