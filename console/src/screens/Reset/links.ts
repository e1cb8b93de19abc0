import { hrefOf } from '../../router';

/** The token of a reset link (`/console/reset#token=...`): in the fragment, so it never reaches a server log. */
export function tokenFromHash(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}

/** The address a user opens to set a new password, on the console at `origin`. */
export function resetAddress(origin: string, token: string): string {
  return `${origin}${hrefOf('reset')}#token=${encodeURIComponent(token)}`;
}
