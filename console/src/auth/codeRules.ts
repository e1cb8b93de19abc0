import { RECOVERY_CODE_PATTERN, TOTP_DIGITS } from '@basalt/contract';

/**
 * The shapes the server accepts for the second factor's codes, checked before a round trip: a wrong guess counts
 * against the sign-in limits, a typo in the shape need not.
 */
const TOTP_PATTERN = new RegExp(`^[0-9]{${TOTP_DIGITS}}$`);

/** An authenticator app's code as typed ("123 456", pasted with spaces) in the form the server takes. */
export function normalisedTotpCode(value: string): string {
  return value.replace(/[\s-]/g, '');
}

/** Why a typed app code cannot be right, or undefined when its shape is. */
export function totpCodeProblem(value: string): string | undefined {
  const code = normalisedTotpCode(value);
  if (!code) return `Enter the ${TOTP_DIGITS}-digit code your authenticator app shows.`;
  if (!TOTP_PATTERN.test(code)) return `The code is ${TOTP_DIGITS} digits, as your authenticator app shows it.`;
  return undefined;
}

/** A recovery code as typed: spaces around it and its case do not matter (the server ignores case). */
export function normalisedRecoveryCode(value: string): string {
  return value.trim().toUpperCase();
}

/** Why a typed recovery code cannot be right, or undefined when its shape is. */
export function recoveryCodeProblem(value: string): string | undefined {
  const code = normalisedRecoveryCode(value);
  if (!code) return 'Enter one of your recovery codes.';
  if (!RECOVERY_CODE_PATTERN.test(code)) return 'A recovery code is ten letters and digits, like ABCDE-23456.';
  return undefined;
}
