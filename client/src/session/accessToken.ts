/**
 * Reads a JWT's claims without verifying it. The client never trusts these for authorization (the server does that);
 * it only needs `exp` and `iat` to know when to refresh, and `role` to keep the user's role current.
 */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function numberClaim(claims: Record<string, unknown> | null, name: string): number | undefined {
  const value = claims?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * When an access token expires, in milliseconds on *this machine's* clock. A token just received lives `exp - iat`
 * seconds from now whatever the local clock says, so a client whose clock is an hour off neither refreshes in a loop
 * nor sends expired tokens. `receivedAt` is omitted for tokens read back from storage, where only `exp` is reliable.
 */
export function accessTokenExpiresAt(token: string, receivedAt?: number): number | undefined {
  const claims = decodeJwtPayload(token);
  const exp = numberClaim(claims, 'exp');
  if (exp === undefined) return undefined;
  const iat = numberClaim(claims, 'iat');
  if (receivedAt !== undefined && iat !== undefined && exp >= iat) return receivedAt + (exp - iat) * 1000;
  return exp * 1000;
}
