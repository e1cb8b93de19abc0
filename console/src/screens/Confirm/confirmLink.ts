import { isApiError } from '@basalt/client';
import { EMAIL_LINK_KINDS, type EmailLinkKind } from '@basalt/contract';

/** Where a mail's link opens Basalt's confirm page (the server answers it with the console's index.html). */
export const CONFIRM_PATH = '/auth/confirm';

export function isConfirmPage(pathname: string): boolean {
  return pathname.replace(/\/+$/, '') === CONFIRM_PATH;
}

/** What a mail's link carries in its fragment (never sent to a server): `#type=<kind>&token=<token>&redirectTo=<url>`. */
export interface ConfirmLink {
  kind: EmailLinkKind;
  token: string;
  /** Where the app wants the visitor afterwards; null when the link names none, or names no http(s) address. */
  redirectTo: string | null;
}

/** The link's kind, token and destination; null when the fragment lacks a token or names no kind the page knows. */
export function parseConfirmFragment(hash: string): ConfirmLink | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const kind = EMAIL_LINK_KINDS.find((known) => known === params.get('type'));
  const token = params.get('token') ?? '';
  if (!kind || !token) return null;
  return { kind, token, redirectTo: webAddress(params.get('redirectTo')) };
}

/**
 * An absolute http(s) address, or null: anyone can write a fragment, and a `javascript:` or `data:` "destination"
 * followed from this origin would run in it.
 */
export function webAddress(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

export const LINK_SPENT = 'This link was already used or has expired: ask for a new mail or use the code.';

/** The words for a refused link (400 naming `token`: unknown, used or expired); undefined for any other error. */
export function linkRefusal(error: unknown): string | undefined {
  return isApiError(error) && error.status === 400 && error.details?.field === 'token' ? LINK_SPENT : undefined;
}
