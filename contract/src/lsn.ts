/**
 * Read-your-writes across read replicas (API.md, "Past one database machine"): every write answers `Basalt-Lsn`, the
 * primary's log position after its commit, as PostgreSQL prints a pg_lsn; a request carrying `Basalt-Min-Lsn` is
 * served from a copy of the database at least that fresh. The client library keeps the latest it saw and sends it.
 */
export const LSN_HEADER = 'basalt-lsn';
export const MIN_LSN_HEADER = 'basalt-min-lsn';

/** A pg_lsn as PostgreSQL prints it: two hexadecimal halves (upper case; lower case is read as well). */
const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The position as one number, or null when the text is not a pg_lsn. */
export function parseLsn(text: string): bigint | null {
  const match = LSN_TEXT.exec(text);
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The position as PostgreSQL prints it. */
export function formatLsn(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The later of two positions given as text (a malformed one counts as none). */
export function laterLsn(a: string | null | undefined, b: string | null | undefined): string | null {
  const [x, y] = [a ? parseLsn(a) : null, b ? parseLsn(b) : null];
  if (x === null) return y === null ? null : b!;
  if (y === null) return a!;
  return y > x ? b! : a!;
}
