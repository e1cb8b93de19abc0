import type { StatementPool } from '../../db/preparedPool.js';
import type { CursorKey } from '../query/cursor.js';
import type { Row } from '../plan/index.js';

/** What the execute stage needs of the process, and what it answers. */

export interface Executor {
  /** The record API's pool: named prepared statements (a bounded number per connection), no query builder. */
  pool: StatementPool;
  /** Whether the schema version moved past the one a statement was planned with. */
  isStale(since: number): Promise<boolean>;
  /** Asked only when a write changed nothing, to say why. */
  userExists(userId: string): Promise<boolean>;
  /** Signs the `next` cursors of list pages (and checks `after`, in the plan). */
  cursorKey: CursorKey;
  /** `<table>.<column>` of the foreign key `constraint` on `table` (a delete it refused names it), if known. */
  referencingColumn(table: string, constraint: string): string | undefined;
}

export interface Page {
  kind: 'page';
  rows: Row[];
  /** Absent with `count=none`. */
  total?: number;
  /** With `count=estimated` only: whether `total` is exact. */
  totalExact?: boolean;
  /** The cursor of the page after this one, or null when no row follows. */
  next: string | null;
}

export type Outcome =
  | Page
  | { kind: 'record'; row: Row; created: boolean }
  /** `changed`: a change by filter's rows (200, not a bulk insert's 201); `ids`: of the rows it changed or deleted. */
  | { kind: 'records'; rows: Row[]; changed?: boolean; ids?: unknown[] }
  /** A change by filter's `dryRun`. */
  | { kind: 'matched'; matched: number };

/** Written rows answered as `{ id }` because the caller may not read them (`rules`): a `select` never reads them back. */
export const hiddenRows = new WeakSet<Row>();
