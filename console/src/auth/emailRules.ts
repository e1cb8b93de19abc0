import { EMAIL_MAX_LENGTH } from '@basalt/contract';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The server's address rule, worded for a form (`email` already trimmed); undefined when the address is fine. */
export function emailProblem(email: string, example = 'someone@example.com'): string | undefined {
  if (!email) return 'Enter an email address.';
  if (!EMAIL.test(email) || email.length > EMAIL_MAX_LENGTH) return `Enter a valid email address, like ${example}.`;
  return undefined;
}
