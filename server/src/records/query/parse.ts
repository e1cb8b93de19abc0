import {
  COUNT_MODES,
  DEFAULT_COUNT_MODE,
  DEFAULT_LIMIT,
  IS_VALUES,
  isListOperator,
  MAX_FILTERS,
  MAX_LIMIT,
  MAX_EMBED_ROWS,
  MAX_LIST_VALUES,
  MAX_QUERY_BYTES,
  MAX_CHANGED_RECORDS,
  OPERATORS,
  RESERVED_PARAMETERS,
  FILTER_PARAMETER,
  type CountMode,
  type IsValue,
  type Operator,
} from '@basalt/contract';
import { invalidParameter } from '../../errors.js';
import { EMBED_OPTION, parseSelectList, type SelectItem } from './select.js';

/**
 * The query language's parser: a list's query string -> a typed tree of names, operators and raw values. It knows no
 * schema (the plan binds names to columns and coerces values), so lists, embeds and realtime filters share it.
 */

/** The contract's reserved parameters, for lookups (a column with one of these names is filtered as `<col>[eq]`). */
const RESERVED = new Set<string>(RESERVED_PARAMETERS);
/** Reserved words a list refuses (400 naming them) rather than ignores. */
const NOT_TAKEN_BY_LISTS = ['all', 'dryRun', 'onConflict'] as const satisfies readonly (typeof RESERVED_PARAMETERS)[number][];

export interface OrderParam {
  column: string;
  direction: 'asc' | 'desc';
}

/** A to-many embed's own options (`<embed>.order`, `<embed>.limit`), parsed with the rest of the query. */
export interface EmbedOptions {
  order?: OrderParam[];
  limit?: number;
}

/** One condition as sent: `key` is the parameter name, which errors name (`score[gte]`). */
export type FilterParam =
  | { key: string; column: string; op: Exclude<Operator, 'in' | 'nin' | 'is'>; value: string }
  | { key: string; column: string; op: 'in' | 'nin'; values: string[] }
  | { key: string; column: string; op: 'is'; value: IsValue };

export interface ListParams {
  limit: number;
  /** null when not given: `after` refuses any offset, 0 included. */
  offset: number | null;
  /** As written, without the `id` tie-breaker the plan adds. */
  order: OrderParam[];
  filters: FilterParam[];
  /** The select list (columns, `*`, embeds), or null for every column. */
  select: SelectItem[] | null;
  /** `<embed path>.order` / `.limit`, by embed path (`comments`, `author.posts`). */
  embedOptions: Record<string, EmbedOptions>;
  after: string | null;
  count: CountMode;
  /** `filter=`: an expression, resolved and folded by the plan (records/query/filter.ts); null when not given. */
  filter: string | null;
  /** The caller the owner's list is seen as (`?as=`): part of what its cursors are bound to. */
  viewAs?: string;
}

export type QueryParams = Record<string, unknown>;

const WHOLE_NUMBER = /^[0-9]+$/;
const FILTER_KEY = /^(.+)\[([A-Za-z]*)\]$/;

export function single(params: QueryParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParameter(name, `${name} is given more than once`);
  return value;
}

function wholeNumber(params: QueryParams, name: string): number | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (!WHOLE_NUMBER.test(value)) throw invalidParameter(name, `${name} must be a whole number >= 0`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw invalidParameter(name, `${name} is too large`);
  return parsed;
}

/** `limit` (default 20, clamped to 100) and `offset` of a listing: whole numbers, each given at most once. */
export function parsePaging(params: QueryParams): { limit: number; offset: number } {
  return { limit: Math.min(wholeNumber(params, 'limit') ?? DEFAULT_LIMIT, MAX_LIMIT), offset: wholeNumber(params, 'offset') ?? 0 };
}

/** `<column>.asc|desc`, comma-separated: of a list (`order`) or of a to-many embed (`comments.order`). */
export function parseOrder(value: string | undefined, parameter = 'order'): OrderParam[] {
  if (value === undefined) return [];
  return value.split(',').map((part) => {
    const dot = part.lastIndexOf('.');
    const direction = part.slice(dot + 1);
    if (dot <= 0 || (direction !== 'asc' && direction !== 'desc')) {
      throw invalidParameter(parameter, `${parameter} must be <column>.asc or <column>.desc, comma-separated; got "${part}"`);
    }
    return { column: part.slice(0, dot), direction };
  });
}

/** `<embed>.limit`: a whole number up to MAX_EMBED_ROWS, the most a to-many embed holds. */
function embedLimit(key: string, text: string): number {
  if (!WHOLE_NUMBER.test(text) || Number(text) > MAX_EMBED_ROWS) throw invalidParameter(key, `${key} must be a whole number from 0 to ${MAX_EMBED_ROWS}`);
  return Number(text);
}

/** `select` and the options of its embeds, shared by lists and single records. */
export function parseSelection(params: QueryParams): { select: SelectItem[] | null; embedOptions: Record<string, EmbedOptions> } {
  const text = single(params, 'select');
  const select = text === undefined || text === '*' ? null : parseSelectList(text);
  const embedOptions: Record<string, EmbedOptions> = {};
  for (const key of Object.keys(params)) {
    const match = EMBED_OPTION.exec(key);
    if (!match || key.includes('[')) continue;
    const options = (embedOptions[match[1]!] ??= {});
    if (match[2] === 'order') options.order = parseOrder(single(params, key)!, key);
    else options.limit = embedLimit(key, single(params, key)!);
  }
  return { select, embedOptions };
}

/**
 * An `in` list: values separated by commas; a value holding a comma or a double quote is written in double quotes, a
 * quote inside doubled (`"a,b"`, `"say ""hi"""`). 1 to 100 values.
 */
export function parseValueList(key: string, text: string): string[] {
  const values: string[] = [];
  let index = 0;
  for (;;) {
    let value = '';
    if (text[index] === '"') {
      index++;
      for (;;) {
        if (index >= text.length) throw invalidParameter(key, `${key} has an unterminated quoted value`);
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            value += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        value += text[index++];
      }
      if (index < text.length && text[index] !== ',') throw invalidParameter(key, `${key}: a quoted value must be followed by a comma or the end`);
    } else {
      const comma = text.indexOf(',', index);
      value = text.slice(index, comma < 0 ? text.length : comma);
      if (value.includes('"')) throw invalidParameter(key, `${key}: a value holding a double quote must be written in double quotes`);
      index = comma < 0 ? text.length : comma;
    }
    values.push(value);
    if (values.length > MAX_LIST_VALUES) throw invalidParameter(key, `${key} takes at most ${MAX_LIST_VALUES} values`);
    if (index >= text.length) return values;
    index++; // the comma
  }
}

function parseFilter(key: string, value: string): FilterParam {
  const match = FILTER_KEY.exec(key);
  if (!match) return { key, column: key, op: 'eq', value };
  const column = match[1]!;
  const op = match[2]! as Operator;
  if (!(OPERATORS as readonly string[]).includes(op)) {
    throw invalidParameter(key, `${key}: unknown operator "${op}"; use one of ${OPERATORS.join(', ')}`);
  }
  if (isListOperator(op)) return { key, column, op, values: parseValueList(key, value) };
  if (op === 'is') {
    if (!(IS_VALUES as readonly string[]).includes(value)) throw invalidParameter(key, `${key} takes one of ${IS_VALUES.join(', ')}`);
    return { key, column, op, value: value as IsValue };
  }
  return { key, column, op, value };
}

/**
 * The list query: paging, order, select, cursor, count mode and filters, as sent. Any parameter given twice is 400
 * naming it; so is a query string over 8 KiB (`query`) or more than 30 filters.
 */
export function parseListParams(params: QueryParams, queryBytes = 0): ListParams {
  if (queryBytes > MAX_QUERY_BYTES) throw invalidParameter('query', `The query string is longer than ${MAX_QUERY_BYTES} bytes`);
  const limit = Math.min(wholeNumber(params, 'limit') ?? DEFAULT_LIMIT, MAX_LIMIT);
  const offset = wholeNumber(params, 'offset') ?? null;
  const order = parseOrder(single(params, 'order'));
  const { select, embedOptions } = parseSelection(params);
  const after = single(params, 'after') ?? null;
  if (after !== null && offset !== null) throw invalidParameter('after', 'after cannot be combined with offset: a cursor says where the page starts');
  const count = single(params, 'count') ?? DEFAULT_COUNT_MODE;
  if (!(COUNT_MODES as readonly string[]).includes(count)) throw invalidParameter('count', `count must be one of ${COUNT_MODES.join(', ')}`);
  for (const key of NOT_TAKEN_BY_LISTS) {
    if (params[key] !== undefined) throw invalidParameter(key, `${key} is not taken by a list (it is for changes by filter and upserts)`);
  }
  if (select?.some((item) => item.kind === 'aggregate')) {
    // Groups have no total, and embeds no rows to hang from (API.md, "Part 2 in detail").
    if (params.count !== undefined) throw invalidParameter('count', 'count is not taken with aggregates: a list of groups has no total');
    if (select.some((item) => item.kind === 'embed') || Object.keys(embedOptions).length > 0) throw invalidParameter('select', 'select: embeds cannot be combined with aggregates');
  }
  const { filters, filter } = parseFilters(params);
  return { limit, offset, order, filters, select, embedOptions, after, count: count as CountMode, filter };
}

/** The filters of a request (`<column>[op]=v`, and `filter=` counting as one), any other parameter skipped. */
function parseFilters(params: QueryParams): { filters: FilterParam[]; filter: string | null } {
  const filter = single(params, FILTER_PARAMETER) ?? null;
  const filters: FilterParam[] = [];
  for (const key of Object.keys(params)) {
    if (RESERVED.has(key) || (EMBED_OPTION.test(key) && !key.includes('['))) continue;
    // The expression filter counts as one of them.
    if (filters.length + (filter === null ? 0 : 1) === MAX_FILTERS) throw invalidParameter(key, `At most ${MAX_FILTERS} filters per request`);
    filters.push(parseFilter(key, single(params, key)!));
  }
  return { filters, filter };
}

/** A change by filter (PATCH or DELETE on a table): which rows, how many at most, and whether only to count them. */
export interface ChangeParams {
  filters: FilterParam[];
  filter: string | null;
  /** 1 to MAX_CHANGED_RECORDS: more matching rows refuse the change (400 naming `limit`). */
  limit: number;
  dryRun: boolean;
}

/** Parameters a change by filter refuses: it has no order or paging, and always answers its rows. */
const NOT_TAKEN_BY_CHANGES = ['order', 'after', 'offset', 'count', 'onConflict'] as const;

function flag(params: QueryParams, name: string): boolean {
  const value = single(params, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidParameter(name, `${name} must be true or false`);
}

/**
 * A change by filter's parameters (API.md, "Query language, part 2"): at least one filter or `all=true` (else 400
 * naming `filter`), `limit` 1 to 1,000 (default 1,000, above clamped), `dryRun`.
 */
export function parseChangeParams(params: QueryParams, queryBytes = 0): ChangeParams {
  if (queryBytes > MAX_QUERY_BYTES) throw invalidParameter('query', `The query string is longer than ${MAX_QUERY_BYTES} bytes`);
  for (const key of NOT_TAKEN_BY_CHANGES) {
    if (params[key] !== undefined) throw invalidParameter(key, `${key} is not taken by a change by filter: it changes every matching record, up to limit`);
  }
  const given = wholeNumber(params, 'limit');
  if (given === 0) throw invalidParameter('limit', `limit must be from 1 to ${MAX_CHANGED_RECORDS}`);
  const limit = Math.min(given ?? MAX_CHANGED_RECORDS, MAX_CHANGED_RECORDS);
  const all = flag(params, 'all');
  const dryRun = flag(params, 'dryRun');
  // `select` and embed options shape the answer (parsed by the caller).
  parseSelection(params);
  const { filters, filter } = parseFilters(params);
  if (filters.length === 0 && filter === null && !all) {
    throw invalidParameter(FILTER_PARAMETER, 'A change by filter needs at least one filter (or filter=), or all=true to change every record');
  }
  return { filters, filter, limit, dryRun };
}
