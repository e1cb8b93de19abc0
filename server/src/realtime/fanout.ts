import type pg from 'pg';
import type { SchemaCache } from '../db/schemaCache.js';
import type { TableSchema } from '../db/schema.js';
import { ApiError, notFound } from '../errors.js';
import { expressionCaller, readRuleLeavingId, requireAccess, type Scope } from '../policies/access.js';
import { changeRowsIsolated, idsFilterOf, ruleFilterOf, type FilterSet } from './changeRows.js';
import type { Subscription } from './hub.js';
import { eventIdOf, isAfter, type Change, type Place } from './log.js';

/**
 * Fan-out, the hub's other half (realtime/hub.ts reads the log and keeps the subscribers): a batch of changes to the
 * subscribers their policy, scope and filters let see each, as event text. Each table's rows are read back once per
 * batch (changeRows.ts), each distinct filter evaluated once, each event's text built once per change and column set,
 * whatever the number of subscribers. (supabase/realtime keeps its poller apart from its dispatcher the same way.)
 */

export interface FanOutDeps {
  /** Where the changes' rows are read back: the same source as the log they came from. */
  source(): pg.Pool;
  cache: SchemaCache;
  onError?: (error: unknown) => void;
}

const eventText = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const EVENT_NAMES = { i: 'insert', u: 'update', d: 'delete' } as const;

export class FanOut {
  /** Changes that could not be delivered since start (their table's subscribers got a reset instead): a metric. */
  undeliverable = 0;

  constructor(
    private readonly deps: FanOutDeps,
    /** Ends a subscription (with the refusal, when one ended it). */
    private readonly drop: (subscriber: Subscription, error?: ApiError) => void,
    /** The place a subscriber's live events must come after, if any. */
    private readonly floorOf: (subscriber: Subscription) => Place | undefined,
  ) {}

  /** Whether the subscriber may read the table now, and the scope it reads under; throws the refusal. */
  access(subscriber: Subscription, table: TableSchema | undefined, name: string, now?: Date): Scope | null {
    if (!table) throw notFound(`No table ${name}`);
    return requireAccess(table, subscriber.caller, 'read', subscriber.surface, { it: true }, now).scope;
  }

  async deliver(changes: readonly Change[], subscribers: readonly Subscription[]): Promise<void> {
    if (changes.length === 0) return;
    const byTable = new Map<string, number[]>();
    changes.forEach((change, index) => {
      const indexes = byTable.get(change.table);
      if (indexes) indexes.push(index);
      else byTable.set(change.table, [index]);
    });
    // Who may read what now: a subscriber refused since (a policy or rule change) is dropped with the refusal.
    const now = new Date();
    const scopesOf = new Map<Subscription, Map<string, Scope | null>>();
    for (const subscriber of subscribers) {
      try {
        scopesOf.set(subscriber, new Map(subscriber.tables.map((name) => [name, this.access(subscriber, this.deps.cache.served(name), name, now)])));
      } catch (error) {
        this.drop(subscriber, error instanceof ApiError ? error : undefined);
      }
    }
    const rows: Array<Record<string, unknown> | null> = changes.map(() => null);
    const matches = new Map<string, Map<number, boolean>>();
    // A change one table's rows cannot be read back from costs its own table's subscribers (a reset), never the rest.
    const undeliverable = new Set<number>();
    const ruleKeys = new Map<Scope, string>();
    const readers = new Map<string, Map<number, readonly string[]>>();
    for (const [table, indexes] of byTable) {
      const filters = new Map<string, FilterSet>();
      const shared = new Map<string, FilterSet | null>();
      for (const [subscriber, scopes] of scopesOf) {
        if (!subscriber.tables.includes(table)) continue;
        if (subscriber.filter) filters.set(subscriber.filter.key, subscriber.filter);
        const scope = scopes.get(table);
        if (scope?.kind === 'rule') {
          const rule = this.ruleFilter(scope, subscriber, this.deps.cache.served(table)!, now, filters, shared);
          ruleKeys.set(scope, rule.key);
          filters.set(rule.key, rule);
        }
      }
      const converted = await changeRowsIsolated(this.deps.source(), table, indexes.map((index) => changes[index]!), [...filters.values()]);
      indexes.forEach((index, position) => (rows[index] = converted.rows[position] ?? null));
      for (const position of converted.undeliverable) undeliverable.add(indexes[position]!);
      if (converted.undeliverable.length > 0) {
        this.undeliverable += converted.undeliverable.length;
        this.deps.onError?.(new Error(`realtime: ${converted.undeliverable.length} change(s) of ${table} could not be delivered (${converted.reason}); its subscribers got a reset event`));
      }
      for (const [key, verdicts] of converted.matches) {
        const into = matches.get(key) ?? new Map<number, boolean>();
        indexes.forEach((index, position) => into.set(index, verdicts[position]!));
        matches.set(key, into);
      }
      for (const [key, ids] of converted.readers) {
        const into = readers.get(key) ?? new Map<number, readonly string[]>();
        indexes.forEach((index, position) => into.set(index, ids[position]!));
        readers.set(key, into);
      }
    }
    // An event's text depends on the change and the columns asked, not on who gets it: built once per pair.
    const texts = new Map<string, string | null>();
    for (const [subscriber, scopes] of scopesOf) {
      const floor = this.floorOf(subscriber);
      changes.forEach((change, index) => {
        if (!scopes.has(change.table) || (floor && !isAfter(change, floor))) return;
        if (undeliverable.has(index)) {
          if (!subscriber.sink.send(undeliverableText(change))) this.drop(subscriber);
          return;
        }
        const row = rows[index] ?? null;
        const scope = scopes.get(change.table) ?? null;
        const ruled = scope?.kind === 'rule' ? this.ruled(subscriber, ruleKeys.get(scope)!, index, matches, readers) : true;
        if (!ruled || !this.sees(subscriber, change, row, scope, matches.get(subscriber.filter?.key ?? '')?.get(index))) return;
        const key = `${index}|${subscriber.columns?.join(',') ?? '*'}`;
        let text = texts.get(key);
        if (text === undefined) texts.set(key, (text = eventOf(change, row, subscriber.columns)));
        if (text !== null && !subscriber.sink.send(text)) this.drop(subscriber);
      });
    }
  }

  /**
   * The filter set a subscriber's read rule joins: the one of the callers who differ from it only in their id, when
   * the rule folded with `@auth.id` left in it can be turned around (one query for all of them, however many); else
   * its own folded rule (one verdict per distinct set of values).
   */
  private ruleFilter(scope: Scope, subscriber: Subscription, table: TableSchema, now: Date, filters: Map<string, FilterSet>, shared: Map<string, FilterSet | null>): FilterSet {
    const caller = subscriber.caller;
    if (caller.kind !== 'user') return ruleFilterOf(scope);
    // Callers who differ only in their id fold the rule alike: once per batch and kind of caller.
    const kind = JSON.stringify({ ...expressionCaller(caller), id: null });
    let filter = shared.get(kind);
    if (filter === undefined) {
      const template = readRuleLeavingId(table, caller, now);
      const ids = template ? idsFilterOf(template) : null;
      filter = ids ? (filters.get(ids.key) ?? ids) : null;
      shared.set(kind, filter);
    }
    if (!filter) return ruleFilterOf(scope);
    filter.ids!.among.add(caller.id);
    return filter;
  }

  private ruled(subscriber: Subscription, key: string, index: number, matches: Map<string, Map<number, boolean>>, readers: Map<string, Map<number, readonly string[]>>): boolean {
    const ids = readers.get(key)?.get(index);
    if (ids) return subscriber.caller.kind === 'user' && ids.includes(subscriber.caller.id);
    return matches.get(key)?.get(index) === true;
  }

  /** Whether the subscriber may see this change: its owner scope and its filters (the policy and rule were checked above). */
  private sees(subscriber: Subscription, change: Change, row: Record<string, unknown> | null, scope: Scope | null, matched: boolean | undefined): boolean {
    if (change.op === 't') return true;
    if (!row) return false;
    if (scope?.kind === 'owner' && String(row[scope.ownerColumn]) !== scope.userId) return false;
    return !subscriber.filter || matched === true;
  }
}

/** What a subscriber gets for a change it may have missed: a reset of that table (list it again), in the change's place. */
function undeliverableText(change: Change): string {
  return eventText(eventIdOf(change), 'reset', { table: change.table, reason: 'A change of this table could not be delivered: list it again' });
}

/** The text of a change's event: a reset (truncate), a delete (`{ id }`), or the row narrowed to `columns`. */
function eventOf(change: Change, row: Record<string, unknown> | null, columns: readonly string[] | null): string | null {
  const id = eventIdOf(change);
  if (change.op === 't') return eventText(id, 'reset', { table: change.table });
  if (!row) return null;
  if (change.op === 'd') return eventText(id, 'delete', { table: change.table, record: { id: row.id } });
  const record = columns ? Object.fromEntries(columns.map((column) => [column, row[column]])) : row;
  return eventText(id, EVENT_NAMES[change.op], { table: change.table, record });
}
