/** What the Account screen shows of a second factor being turned on: the key to type in, and the recovery codes to keep. */

/** A base32 key in groups of four, as authenticator apps show it and people type it (apps ignore the spaces). */
export function groupSecret(secret: string): string {
  return (secret.replace(/\s+/g, '').match(/.{1,4}/g) ?? []).join(' ');
}

/** The recovery codes as a text file to keep: what they are for, where they work, then one code a line. */
export function recoveryCodesFile(codes: readonly string[], account: string, api: string, made: Date): string {
  return [
    `Recovery codes for ${account} at ${api}`,
    `Made ${made.toISOString()}. Each code signs in once in place of the authenticator app's code;`,
    'making new codes stops these.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** The file's name: the API's host, so the codes of two projects do not overwrite each other in Downloads. */
export function recoveryCodesFileName(api: string): string {
  const host = new URL(api).host.replace(/[^A-Za-z0-9.-]+/g, '-');
  return `recovery-codes-${host}.txt`;
}
