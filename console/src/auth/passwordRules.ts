import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES } from '@basalt/contract';

/** The server's password rule (8 to 72 bytes of UTF-8), worded for a form; undefined when the password is fine. */
export function newPasswordProblem(password: string): string | undefined {
  if (!password) return 'Enter a password.';
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < PASSWORD_MIN_BYTES) return `Use at least ${PASSWORD_MIN_BYTES} characters.`;
  if (bytes > PASSWORD_MAX_BYTES) return `Use at most ${PASSWORD_MAX_BYTES} bytes.`;
  return undefined;
}
