import { expect } from 'vitest';
import type { CaughtMail, SmtpCatcher } from '../../../test-support/smtp.js';
import { ApiError, parseEmailLink, type EmailLink } from '../../src/index.js';

/** Runs `action` and waits for the next mail it makes to `address`. */
export async function mailFrom(catcher: SmtpCatcher, address: string, action: () => Promise<unknown>): Promise<CaughtMail> {
  const before = catcher.to(address).length;
  await action();
  return catcher.waitFor(address, before + 1);
}

/** The Basalt link of a mail (`#type=...&token=...`), read as an app reads it. */
export function linkOf(mail: CaughtMail): EmailLink {
  const link = parseEmailLink(mail.link ?? '');
  if (!link) throw new Error(`no Basalt link in the mail "${mail.subject}":\n${mail.text}`);
  return link;
}

export function codeOf(mail: CaughtMail): string {
  if (!mail.code) throw new Error(`no code in the mail "${mail.subject}":\n${mail.text}`);
  return mail.code;
}

/** The ApiError a call rejects with (it must reject with one). */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
