import type pg from 'pg';

/**
 * Reading the change log (`_basalt_changes`, migration `changes`) in commit-safe windows.
 *
 * A change's place is (xid, id): its writing transaction and its row. A window is read up to the oldest transaction
 * still running (`pg_snapshot_xmin` of the reading statement's own snapshot): every transaction below it has ended, so
 * its changes are all visible and none can appear later behind the reader. Every process therefore reads the same
 * changes in the same order, and a place is a resume point valid on any process.
 */

export type ChangeOp = 'i' | 'u' | 'd' | 't';

export interface Change {
  xid: bigint;
  id: number;
  /** Its index among the rows of its statement (one log row per statement). */
  n: number;
  table: string;
  op: ChangeOp;
  /** The row as written (insert, update) or as it was (delete); null for a truncate. */
  record: Record<string, unknown> | null;
  /** Read for webhooks only (`ChangeLog.read` with `full`): an update's row as it was (null where its id changed). */
  old?: Record<string, unknown> | null;
  /** Read for webhooks only: the writing transaction's start (ISO with milliseconds). */
  at?: string;
  /** Read for webhooks only: how many rows its statement wrote (a full read returns a big statement's in parts). */
  of?: number;
}

export interface Place {
  xid: bigint;
  id: number;
  n: number;
}

/** Whether `a` comes after `b` in the log's order. */
export function isAfter(a: Place, b: Place): boolean {
  return a.xid !== b.xid ? a.xid > b.xid : a.id !== b.id ? a.id > b.id : a.n > b.n;
}

/** The event id of a change: opaque to clients, the same on every process. */
export function eventIdOf(place: Place): string {
  return `${place.xid.toString(36)}.${place.id.toString(36)}.${place.n.toString(36)}`;
}

/** A `Last-Event-ID` back to its place; null when it is not one of ours. */
export function placeOf(eventId: string): Place | null {
  const match = /^([0-9a-z]{1,13})\.([0-9a-z]{1,11})\.([0-9a-z]{1,4})$/.exec(eventId);
  if (!match) return null;
  const id = parseInt(match[2]!, 36);
  if (!Number.isSafeInteger(id)) return null;
  let xid = 0n;
  for (const digit of match[1]!) xid = xid * 36n + BigInt(parseInt(digit, 36));
  return { xid, id, n: parseInt(match[3]!, 36) };
}

interface ChangeRow {
  xid: string;
  id: number;
  table_name: string;
  op: ChangeOp;
  /** The statement's rows; null for a truncate. */
  record: Array<Record<string, unknown>> | null;
  old?: Array<Record<string, unknown> | null> | null;
  at?: string;
  /** A full read: the index of the first row returned, and how many the statement wrote. */
  first?: number;
  total?: number | null;
}

/** A log row (one statement) as its changes, one per row. */
function changesOf(row: ChangeRow): Change[] {
  const xid = BigInt(row.xid);
  const full = row.at === undefined ? {} : { at: row.at, ...(row.total == null ? {} : { of: row.total }) };
  if (row.record === null) return [{ xid, id: row.id, n: 0, table: row.table_name, op: row.op, record: null, ...full }];
  const first = row.first ?? 0;
  return row.record.map((record, i) => ({
    xid,
    id: row.id,
    n: first + i,
    table: row.table_name,
    op: row.op,
    record,
    ...full,
    ...(row.at === undefined ? {} : { old: row.old?.[i] ?? null }),
  }));
}

/** What a full read adds (webhooks): the old rows of updates and the transaction's start. */
const FULL_COLUMNS = `, c.old, to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`;

/**
 * A full read's rows in parts: at most READ_LIMIT of a statement's rows, from the one after `resume` in its own
 * statement (else from its first): a statement of a million rows is read a part at a time, never whole again.
 */
const SLICED_COLUMNS = `, jsonb_path_query_array(c.record, '$[$a to $b]', p.v) AS record, jsonb_path_query_array(c.old, '$[$a to $b]', p.v) AS old,
  (p.v->>'a')::int AS first, jsonb_array_length(c.record) AS total, to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`;

/** At most this many changes per read; the rest come with the next one. */
export const READ_LIMIT = 5_000;

/** Where a full read's part of each statement starts ($3-$5: the place to resume after) and ends. */
const SLICE = ` CROSS JOIN LATERAL (
    SELECT jsonb_build_object('a', a, 'b', a + ${READ_LIMIT - 1}) AS v
      FROM (SELECT CASE WHEN c.xid = $3::text::xid8 AND c.id = $4::bigint THEN $5::int + 1 ELSE 0 END AS a) k) p`;

export class ChangeLog {
  /** `source`: where the log is read, asked per statement (the realtime hub may read it from a standby). */
  constructor(private readonly source: pg.Pool | (() => pg.Pool)) {}

  private get pool(): pg.Pool {
    return typeof this.source === 'function' ? this.source() : this.source;
  }

  /** Where reading starts for a process that has read nothing yet: everything before now is history. */
  async horizon(): Promise<bigint> {
    const result = await this.pool.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
    return BigInt(result.rows[0]!.xmin);
  }

  /**
   * The changes after `after` (or from transaction `from` on) below the current horizon, in order, and the horizon
   * reached: all of it when fewer than READ_LIMIT, else up to the last change returned. `full` (webhooks): with old
   * rows, times and statement sizes, each statement's rows in parts of READ_LIMIT, `resume`'s own from after it.
   */
  async read(from: bigint, tables: readonly string[] | null, full = false, resume: Place | null = null): Promise<{ changes: Change[]; next: bigint }> {
    const result = await this.pool.query<ChangeRow & { xmin: string }>(
      `WITH s AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
       SELECT c.xid::text AS xid, c.id, c.table_name, c.op${full ? SLICED_COLUMNS : ', c.record'}, s.xmin::text AS xmin
         FROM s LEFT JOIN LATERAL (
           SELECT * FROM _basalt_changes
            WHERE xid >= $1::text::xid8 AND xid < s.xmin AND ($2::text[] IS NULL OR table_name = ANY($2::text[]))
            ORDER BY xid, id LIMIT ${READ_LIMIT}
         ) c ON true${full ? SLICE : ''}`,
      full ? [from.toString(), tables, resume?.xid.toString() ?? null, resume?.id ?? null, resume?.n ?? null] : [from.toString(), tables],
    );
    const xmin = BigInt(result.rows[0]!.xmin);
    const rows = result.rows.filter((row) => row.id !== null);
    // A full read may stop inside a transaction's changes: the next read starts at that transaction again, and the
    // caller skips what it delivered (by place).
    const next = rows.length >= READ_LIMIT ? BigInt(rows[rows.length - 1]!.xid) : xmin;
    return { changes: rows.flatMap(changesOf), next };
  }

  /**
   * A webhook replay's page: the changes written from `since` on, after the log row `after`, of transactions below
   * `below`, with old rows and times (`tables` null: every table).
   */
  async readFrom(since: Date, after: { xid: bigint; id: number } | null, below: bigint, tables: readonly string[] | null): Promise<Change[]> {
    const result = await this.pool.query<ChangeRow>(
      `SELECT c.xid::text AS xid, c.id, c.table_name, c.op, c.record${FULL_COLUMNS} FROM _basalt_changes c
        WHERE c.at >= $1 AND ($2::text IS NULL OR (c.xid, c.id) > ($2::text::xid8, $3::bigint)) AND c.xid < $4::text::xid8
          AND ($5::text[] IS NULL OR c.table_name = ANY($5::text[]))
        ORDER BY c.xid, c.id LIMIT ${READ_LIMIT}`,
      [since, after?.xid.toString() ?? null, after?.id ?? null, below.toString(), tables],
    );
    return result.rows.flatMap(changesOf);
  }

  /** The changes of `tables` strictly after `place` and below `before`, in order: a resumed stream's catch-up. */
  async since(place: Place, before: bigint, tables: readonly string[]): Promise<Change[]> {
    const result = await this.pool.query<ChangeRow>(
      `SELECT xid::text AS xid, id, table_name, op, record FROM _basalt_changes
        WHERE (xid, id) >= ($1::text::xid8, $2::bigint) AND xid < $3::text::xid8 AND table_name = ANY($4::text[])
        ORDER BY xid, id LIMIT ${READ_LIMIT}`,
      [place.xid.toString(), place.id, before.toString(), tables],
    );
    return result.rows.flatMap(changesOf).filter((change) => isAfter(change, place));
  }

  /** Whether changes after `place` may have been deleted already (then the client must start over). */
  async trimmedPast(place: Place): Promise<boolean> {
    const result = await this.pool.query<{ xid: string }>('SELECT xid::text AS xid FROM _basalt_changes_trimmed');
    // The changes of one transaction go together (they share its `at`): a place inside the last one deleted is gone too.
    return place.xid <= BigInt(result.rows[0]?.xid ?? '0');
  }

  /**
   * Deletes changes older than `retentionMs`, remembering up to which transaction, and answers how many went. One
   * process at a time (an advisory lock): another one's trim under way makes this one delete nothing.
   */
  async trim(retentionMs: number): Promise<number> {
    const result = await this.pool.query<{ deleted: number }>(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('basalt changes trim')) AS held),
            gone AS (
              DELETE FROM _basalt_changes
               WHERE at < now() - make_interval(secs => $1::double precision) AND (SELECT held FROM lock)
                 -- A consumer holding the log (webhooks' enqueuer) keeps every change from its place on.
                 AND NOT EXISTS (SELECT 1 FROM _basalt_change_holds h WHERE h.xid <= _basalt_changes.xid)
               RETURNING xid),
            marked AS (
              UPDATE _basalt_changes_trimmed SET xid = greatest(xid, (SELECT xid FROM gone ORDER BY xid DESC LIMIT 1))
               WHERE EXISTS (SELECT 1 FROM gone))
       SELECT count(*)::int AS deleted FROM gone`,
      [retentionMs / 1000],
    );
    return result.rows[0]?.deleted ?? 0;
  }
}
