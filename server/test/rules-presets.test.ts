import fc from 'fast-check';
import type pg from 'pg';
import type supertest from 'supertest';
import { presetRules, type Policy } from '@basalt/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonHeaders, createTable, signUp, startHarness, type Account, type Harness } from './harness.js';

/**
 * Presets as rules (API.md, "Access rules: policy `rules`", and "Part 2 in detail", Access rules): a table under a
 * preset and the same table under the preset's exact expansion give identical answers to every request. For each
 * preset (owner-scoped, owner-scoped without an owner column, public-read, private) two tables with the same columns
 * and the same rows, one under the preset and one under `rules` with `presetRules(...)`, get the same 600 random
 * requests (fast-check, fixed seed) from anon, the owner, two members, and read and read-write API keys of a member and
 * of the owner: lists (filters, `filter=`, order, paging, counts, select with embeds, the next page), reads by id, creates
 * (single and bulk), PUT and DELETE on own, other's and missing rows, and embeds of the pair from the tables it
 * references. Writes go to both tables, so they stay in step (checked in SQL after every write).
 *
 * Compared: status and the whole body, but for what the contract lets differ: messages, `createdAt`/`updatedAt` values,
 * the table's name (and cursors, bound to it), and in a 403 naming the table `details.policy` (each table's own,
 * checked) and `details.operation` (presets say `write` where rules say `create`/`update`/`delete`). A `read` key
 * writing where the preset refuses its user anyway gets the policy's 403 without `reason` under the preset and
 * `reason: "read_only_key"` under rules (docs/api.md, "Errors" and "Access rules"): counted, not a failure.
 * Not run: requests whose body sets the owner column to anything but the caller (another user, or null), which the
 * contract leaves out (presets force the owner column, rules keep a body value and decide).
 *
 * RULES_PRESETS_SEED replays or varies a run; RULES_PRESETS_STEPS sets the number of requests per preset.
 */

const SEED = Number(process.env.RULES_PRESETS_SEED ?? 20261126);
const STEPS = Number(process.env.RULES_PRESETS_STEPS ?? 600);

type Preset = Exclude<Policy, 'rules'>;
interface Case {
  key: string;
  policy: Preset;
  withOwner: boolean;
  /** The policy a 403 of the preset's table names (a table without an owner column is never owner-scoped). */
  effective: Policy;
}
const CASES: Case[] = [
  { key: 'owned', policy: 'owner-scoped', withOwner: true, effective: 'owner-scoped' },
  { key: 'ownerless', policy: 'owner-scoped', withOwner: false, effective: 'private' },
  { key: 'public', policy: 'public-read', withOwner: true, effective: 'public-read' },
  { key: 'private', policy: 'private', withOwner: true, effective: 'private' },
];
const presetTable = (c: Case) => `pre_${c.key}`;
const rulesTable = (c: Case) => `exp_${c.key}`;

const TITLES = ['alpha', 'beta', 'Gamma', 'delta', null];
const TAG_IDS = ['t1', 't2', 't3', 't4'];
const NOTE_IDS = ['n-owner', 'n-ann', 'n-bob', 'n-none'];

let h: Harness;
let sql: pg.Client;
let owner: Account;
let ann: Account;
let bob: Account;

interface Caller {
  name: string;
  headers: Record<string, string>;
  /** The user the caller acts as (null: anon). */
  userId: string | null;
  readKey: boolean;
}
let callers: Caller[];

const columns = (withOwner: boolean) => [
  ...(withOwner ? [{ name: 'user_id', type: 'text' }] : []),
  { name: 'title', type: 'text' },
  { name: 'score', type: 'integer' },
  { name: 'tag_id', type: 'text', references: { table: 'tags', onDelete: 'set-null' } },
  { name: 'note_id', type: 'text', references: { table: 'notes', onDelete: 'set-null' } },
];

async function admin(method: 'post' | 'patch' | 'get', path: string, body?: unknown): Promise<supertest.Response> {
  const call = h.request()[method](path).set(owner.auth);
  const response = await (body === undefined ? call : call.send(body as object));
  if (response.status >= 300) throw new Error(`${method.toUpperCase()} ${path} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

async function createKey(account: Account, access: 'read' | 'read-write'): Promise<string> {
  const response = await h.request().post('/auth/keys').set(account.auth).send({ name: `rules-presets ${access}`, access });
  if (response.status !== 201) throw new Error(`create key failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.key as string;
}

beforeAll(async () => {
  h = await startHarness();
  sql = await h.sql();
  owner = await signUp(h);
  ann = await signUp(h);
  bob = await signUp(h);
  const [readKey, writeKey] = [await createKey(ann, 'read'), await createKey(ann, 'read-write')];
  const [ownerReadKey, ownerWriteKey] = [await createKey(owner, 'read'), await createKey(owner, 'read-write')];
  callers = [
    { name: 'anon', headers: anonHeaders(h), userId: null, readKey: false },
    { name: 'owner', headers: owner.auth, userId: owner.id, readKey: false },
    { name: 'ann', headers: ann.auth, userId: ann.id, readKey: false },
    { name: 'bob', headers: bob.auth, userId: bob.id, readKey: false },
    { name: "ann's read key", headers: { Authorization: `Bearer ${readKey}` }, userId: ann.id, readKey: true },
    { name: "ann's read-write key", headers: { Authorization: `Bearer ${writeKey}` }, userId: ann.id, readKey: false },
    { name: "the owner's read key", headers: { Authorization: `Bearer ${ownerReadKey}` }, userId: owner.id, readKey: true },
    { name: "the owner's read-write key", headers: { Authorization: `Bearer ${ownerWriteKey}` }, userId: owner.id, readKey: false },
  ];

  // The tables the pairs reference: one everyone reads, one each user reads their own rows of.
  await createTable(h, owner, { name: 'tags', policy: 'public-read', columns: [{ name: 'name', type: 'text' }] });
  await createTable(h, owner, { name: 'notes', columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
  await admin('post', '/admin/tables/tags/records', TAG_IDS.map((id, i) => ({ id, name: ['red', 'green', 'blue', 'red'][i] })));
  const noteOwners = [owner.id, ann.id, bob.id, null];
  await admin('post', '/admin/tables/notes/records', NOTE_IDS.map((id, i) => ({ id, user_id: noteOwners[i], body: `note ${i}` })));

  const rowOwners = [owner.id, ann.id, bob.id, null];
  for (const c of CASES) {
    await createTable(h, owner, { name: presetTable(c), policy: c.policy, columns: columns(c.withOwner) });
    await createTable(h, owner, { name: rulesTable(c), columns: columns(c.withOwner) });
    await admin('patch', `/admin/tables/${rulesTable(c)}`, { policy: 'rules', rules: presetRules(c.policy, c.withOwner ? 'user_id' : null) });
    const rows = Array.from({ length: 12 }, (_, i) => ({
      id: `s${String(i + 1).padStart(2, '0')}`,
      ...(c.withOwner ? { user_id: rowOwners[i % 4] } : {}),
      title: TITLES[i % TITLES.length],
      score: i % 5 === 4 ? null : (i * 7) % 11,
      tag_id: i % 3 === 2 ? null : TAG_IDS[i % 4],
      note_id: i % 4 === 3 ? null : NOTE_IDS[(i + 1) % 4],
    }));
    for (const table of [presetTable(c), rulesTable(c)]) await admin('post', `/admin/tables/${table}/records`, rows);
  }
}, 60_000);
afterAll(() => h?.close());

/** A seeded stream of numbers in [0, 1) (mulberry32), one per step: fast-check draws the steps, this their details. */
class Draws {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
}

type Kind = 'list' | 'get' | 'create' | 'bulk' | 'put' | 'delete' | 'embedded';
const KINDS: Array<[Kind, number]> = [['list', 7], ['get', 3], ['create', 3], ['bulk', 2], ['put', 4], ['delete', 2], ['embedded', 2]];
const stepArbitrary = fc.record({
  // anon, the owner, ann, bob, ann's keys (read, read-write), the owner's keys: the owner more often (the only writer
  // under most presets).
  caller: fc.oneof(...[1, 3, 2, 2, 1, 2, 1, 1].map((weight, index) => ({ arbitrary: fc.constant(index), weight }))),
  kind: fc.oneof(...KINDS.map(([kind, weight]) => ({ arbitrary: fc.constant(kind), weight }))),
  seed: fc.integer(),
});

type Params = Array<[string, string]>;
interface Request {
  caller: Caller;
  method: 'get' | 'post' | 'put' | 'delete';
  /** `pair`: the table under test; `tags`/`notes`: a table it references, embedding it (to-many). */
  resource: 'pair' | 'tags' | 'notes';
  id?: string;
  /** The query for one table of the pair (embeds name it). */
  params: (table: string) => Params;
  body?: unknown;
  writes: boolean;
  /** Also compare the next page, each table's answer paged with its own cursor. */
  nextPage?: boolean;
}

interface Row {
  id: string;
  user_id?: string | null;
}

/** What a step may aim at: the rows of the table now (both tables hold the same). */
interface World {
  c: Case;
  rows: Row[];
  fresh: () => string;
}

const pathOf = (request: Request, table: string, after?: string): string => {
  const params = request.params(table).filter(([key]) => after === undefined || key !== 'offset');
  if (after !== undefined) params.push(['after', after]);
  const base = `/api/${request.resource === 'pair' ? table : request.resource}${request.id === undefined ? '' : `/${encodeURIComponent(request.id)}`}`;
  return params.length > 0 ? `${base}?${new URLSearchParams(params)}` : base;
};
/** The request as sent to either table (`<table>` standing for its name), its query unencoded for reading. */
function describeRequest(request: Request): string {
  const params = request.params('<table>');
  const base = `/api/${request.resource === 'pair' ? '<table>' : request.resource}${request.id === undefined ? '' : `/${request.id}`}`;
  const path = params.length > 0 ? `${base}?${params.map(([key, value]) => `${key}=${value}`).join('&')}` : base;
  return `${request.caller.name}: ${request.method.toUpperCase()} ${path}${request.body === undefined ? '' : ` ${JSON.stringify(request.body)}`}`;
}

function target(d: Draws, w: World, caller: Caller, which: 'own' | 'other' | 'missing'): string {
  if (which === 'missing') return `missing-${d.int(1, 40)}`;
  const mine = (row: Row) => w.c.withOwner && caller.userId !== null && row.user_id === caller.userId;
  const candidates = w.rows.filter((row) => (which === 'own' ? mine(row) : !mine(row)));
  return d.pick(candidates.length > 0 ? candidates : w.rows).id;
}

function filterParam(d: Draws, w: World): [string, string] {
  const users = [owner.id, ann.id, bob.id];
  const options: Array<() => [string, string]> = [
    () => ['score[gte]', String(d.int(-1, 11))],
    () => ['score[lt]', String(d.int(-1, 11))],
    () => ['score', String(d.int(0, 10))],
    () => ['score[is]', d.pick(['null', 'notnull'])],
    () => ['title', d.pick(TITLES.filter((title) => title !== null))],
    () => ['title[ilike]', d.pick(['*a*', 'g*', '*TA'])],
    () => ['title[in]', 'alpha,beta'],
    () => ['tag_id', d.pick(TAG_IDS)],
    () => ['note_id[is]', 'null'],
    () => ['id', w.rows.length > 0 && d.chance(0.8) ? d.pick(w.rows).id : 'missing-1'],
    () => ['id[in]', w.rows.length > 0 ? `${d.pick(w.rows).id},${d.pick(w.rows).id}` : 'missing-1'],
    () => ['score[gte]', 'many'],
    () => ['nope', '1'],
    ...(w.c.withOwner ? [(): [string, string] => ['user_id', d.pick(users)], (): [string, string] => ['user_id[is]', 'null'], (): [string, string] => ['user_id[neq]', ann.id]] : []),
  ];
  return d.pick(options)();
}

const FILTERS = ["score > 3 or title = 'alpha'", 'not (score >= 5)', "tag.name = 'red'", "note.body like 'note*'", 'title is null', 'score in (1, 2, 3)', "@auth.role = 'owner' or score < 4", 'score >'];
const ORDERS = ['score.asc', 'score.desc,title.asc', 'title.desc', 'id.desc', 'createdAt.desc', 'updatedAt.asc', 'tag_id.asc,score.desc', 'nope.asc'];
const SELECTS = ['*', 'id,title', '*,tag(*)', 'id,title,note(id,body)', 'id,tag(name),note(*)', 'tag(name)', 'id,nope'];
const WRITE_SELECTS = ['id,title', '*,tag(name)', 'id,note(body)', 'title,score', 'nope'];

function listParams(d: Draws, w: World): Params {
  const params: Params = [];
  for (let i = d.int(0, 3); i > 0; i--) params.push(filterParam(d, w));
  if (d.chance(0.2)) params.push(['filter', d.pick(w.c.withOwner ? [...FILTERS, 'user_id = @auth.id', 'user_id != @auth.id or score = 0'] : FILTERS)]);
  if (d.chance(0.6)) params.push(['order', d.pick(ORDERS)]);
  if (d.chance(0.6)) params.push(['limit', String(d.int(0, 12))]);
  if (d.chance(0.15)) params.push(['offset', String(d.int(0, 6))]);
  if (d.chance(0.5)) params.push(['count', d.pick(['exact', 'exact', 'estimated', 'none'])]);
  if (d.chance(0.5)) params.push(['select', d.pick(w.c.withOwner ? [...SELECTS, 'id,user_id,score'] : SELECTS)]);
  return params;
}

const INVALID: Array<Record<string, unknown>> = [{ score: 'many' }, { nope: 1 }, { createdAt: '2020-01-01T00:00:00Z' }, { title: 5 }, { score: 1.5 }];

/** A record's columns, some of them; the owner column left out, the caller, or (left out of the run) anything else. */
function recordBody(d: Draws, w: World, caller: Caller): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (d.chance(0.7)) body.title = d.pick(TITLES);
  if (d.chance(0.6)) body.score = d.chance(0.1) ? null : d.int(-2, 12);
  if (d.chance(0.4)) body.tag_id = d.pick([...TAG_IDS, null, 'no-such-tag']);
  if (d.chance(0.3)) body.note_id = d.pick([...NOTE_IDS, null]);
  if (w.c.withOwner) {
    const owned = d.next();
    if (owned < 0.35) body.user_id = caller.userId;
    else if (owned < 0.42) body.user_id = d.pick([owner.id, ann.id, bob.id, null]);
  }
  if (d.chance(0.07)) Object.assign(body, d.pick(INVALID));
  return body;
}

function writeParams(d: Draws): Params {
  return d.chance(0.25) ? [['select', d.pick(WRITE_SELECTS)]] : [];
}

function makeRequest(d: Draws, w: World, caller: Caller, kind: Kind): Request {
  const none = () => [] as Params;
  switch (kind) {
    case 'list': {
      const params = listParams(d, w);
      return { caller, method: 'get', resource: 'pair', params: () => params, writes: false, nextPage: d.chance(0.4) };
    }
    case 'get': {
      const params: Params = d.chance(0.4) ? [['select', d.pick(SELECTS)]] : [];
      return { caller, method: 'get', resource: 'pair', id: target(d, w, caller, d.pick(['own', 'other', 'missing'] as const)), params: () => params, writes: false };
    }
    case 'create': {
      const id = d.chance(0.1) && w.rows.length > 0 ? d.pick(w.rows).id : w.fresh();
      const params = writeParams(d);
      return { caller, method: 'post', resource: 'pair', params: () => params, body: { id, ...recordBody(d, w, caller) }, writes: true };
    }
    case 'bulk': {
      if (d.chance(0.03)) return { caller, method: 'post', resource: 'pair', params: none, body: [], writes: true };
      const records = Array.from({ length: d.int(1, 4) }, () => ({ id: w.fresh(), ...recordBody(d, w, caller) }));
      if (d.chance(0.1) && w.rows.length > 0) d.pick(records).id = d.pick(w.rows).id;
      else if (d.chance(0.05) && records.length > 1) records[records.length - 1]!.id = records[0]!.id;
      const params = writeParams(d);
      return { caller, method: 'post', resource: 'pair', params: () => params, body: records, writes: true };
    }
    case 'put': {
      const id = target(d, w, caller, d.pick(['own', 'own', 'other', 'missing'] as const));
      const body = recordBody(d, w, caller);
      if (d.chance(0.05)) body.id = id;
      else if (d.chance(0.03)) body.id = w.fresh();
      const params = writeParams(d);
      return { caller, method: 'put', resource: 'pair', id, params: () => params, body, writes: true };
    }
    case 'delete':
      return { caller, method: 'delete', resource: 'pair', id: target(d, w, caller, d.pick(['own', 'own', 'other', 'missing'] as const)), params: none, writes: true };
    case 'embedded': {
      // The pair embedded (to-many) under the tables it references: its read rule decides which rows appear.
      const shape = d.int(0, 3);
      if (shape === 0) {
        // Embed options: `<table>.order`, `<table>.limit`.
        const options: Params = [];
        if (d.chance(0.5)) options.push(['order', d.pick(['score.desc', 'title.asc,score.asc'])]);
        if (d.chance(0.5)) options.push(['limit', String(d.int(0, 3))]);
        return {
          caller,
          method: 'get',
          resource: 'tags',
          params: (table) => [['select', `id,name,${table}(id,title,score)`], ['order', 'id.asc'], ...options.map(([option, value]): [string, string] => [`${table}.${option}`, value])],
          writes: false,
        };
      }
      if (shape === 1) return { caller, method: 'get', resource: 'tags', id: d.pick(TAG_IDS), params: (table) => [['select', `*,${table}(*)`]], writes: false };
      if (shape === 2) return { caller, method: 'get', resource: 'tags', params: (table) => [['select', `id,${table}(id,note(body))`]], writes: false };
      return { caller, method: 'get', resource: 'notes', params: (table) => [['select', `id,body,${table}(id,title)`]], writes: false };
    }
  }
}

/** The contract leaves out bodies that set the owner column to anything but the caller. */
function setsOwnerToOther(request: Request, c: Case): boolean {
  if (!c.withOwner || request.body === undefined) return false;
  const records = (Array.isArray(request.body) ? request.body : [request.body]) as Array<Record<string, unknown>>;
  return records.some((record) => 'user_id' in record && (request.caller.userId === null || record.user_id !== request.caller.userId));
}

function send(request: Request, table: string, after?: string): Promise<supertest.Response> {
  const agent = h.request();
  const path = pathOf(request, table, after);
  const call = (request.method === 'get' ? agent.get(path) : request.method === 'post' ? agent.post(path) : request.method === 'put' ? agent.put(path) : agent.delete(path)).set(request.caller.headers);
  return request.body === undefined ? call : call.send(request.body as object);
}

/** The table's name made neutral (keys and values), timestamps' values hidden. */
function neutral(value: unknown, table: string): unknown {
  if (typeof value === 'string') return value.split(table).join('<table>');
  if (Array.isArray(value)) return value.map((item) => neutral(item, table));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.split(table).join('<table>'), (key === 'createdAt' || key === 'updatedAt') && item !== null ? '<time>' : neutral(item, table)]),
    );
  }
  return value;
}

interface Answer {
  status: number;
  body: unknown;
}

/** An answer as compared: the contract's differences taken out (and the 403's policy checked here). */
function answerOf(response: supertest.Response, table: string, policy: Policy, problems: string[]): Answer {
  const body = structuredClone(response.body ?? null) as Record<string, unknown> | null;
  const error = body?.error as { message?: string; details?: Record<string, unknown> } | undefined;
  if (error) {
    delete error.message;
    const details = error.details;
    if (details?.table === table) {
      if (response.status === 403 && details.policy !== policy) problems.push(`${table}: details.policy is ${JSON.stringify(details.policy)}, expected ${policy}`);
      delete details.policy;
      if (policy === 'rules' && typeof details.operation === 'string' && ['create', 'update', 'delete'].includes(details.operation)) details.operation = 'write';
    }
  }
  if (body && typeof body.next === 'string') body.next = '<cursor>';
  return { status: response.status, body: neutral(body, table) };
}

interface Tally {
  statuses: Record<string, number>;
  skipped: number;
  readKeyReason: number;
  requests: number;
}

function compare(c: Case, request: Request, context: string, preset: supertest.Response, rules: supertest.Response, tally: Tally): void {
  const problems: string[] = [];
  const expected = answerOf(preset, presetTable(c), c.effective, problems);
  const actual = answerOf(rules, rulesTable(c), 'rules', problems);
  // Documented: a read key writing where the preset refuses its user anyway gets the policy's 403 without `reason`.
  const actualDetails = (actual.body as { error?: { details?: Record<string, unknown> } } | null)?.error?.details;
  const expectedDetails = (expected.body as { error?: { details?: Record<string, unknown> } } | null)?.error?.details;
  if (request.caller.readKey && expected.status === 403 && actualDetails?.reason === 'read_only_key' && expectedDetails && expectedDetails.reason === undefined) {
    delete actualDetails.reason;
    tally.readKeyReason += 1;
  }
  const message = [
    `seed ${SEED} (RULES_PRESETS_SEED), preset ${c.policy}${c.withOwner ? '' : ' without an owner column'}, ${context}`,
    `  ${describeRequest(request)}`,
    `  ${presetTable(c)} (${c.policy}) answered ${preset.status} ${JSON.stringify(preset.body)}`,
    `  ${rulesTable(c)} (rules) answered ${rules.status} ${JSON.stringify(rules.body)}`,
  ].join('\n');
  expect(problems, message).toEqual([]);
  expect(actual, message).toEqual(expected);
  tally.statuses[preset.status] = (tally.statuses[preset.status] ?? 0) + 1;
  tally.requests += 1;
}

async function rowsOf(table: string): Promise<Array<Record<string, unknown>>> {
  const result = await sql.query(`SELECT * FROM "${table}" ORDER BY id`);
  return result.rows.map((row: Record<string, unknown>) => {
    const { createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = row;
    return rest;
  });
}

describe('a table under a preset and the same table under its expansion answer every request alike', () => {
  it.each(CASES.map((c, index) => [`${c.policy}${c.withOwner ? '' : ' without an owner column'}`, c, index] as const))(
    '%s',
    async (_name, c, index) => {
      // The descriptions: the preset's table describes the expansion the other table was given.
      const expansion = presetRules(c.policy, c.withOwner ? 'user_id' : null);
      const [presetDescription, rulesDescription] = await Promise.all([admin('get', `/admin/tables/${presetTable(c)}`), admin('get', `/admin/tables/${rulesTable(c)}`)]);
      expect(presetDescription.body.data).toMatchObject({ policy: c.policy, effectivePolicy: c.effective, rules: expansion });
      expect(rulesDescription.body.data).toMatchObject({ policy: 'rules', rules: expansion });

      const steps = fc.sample(stepArbitrary, { seed: SEED + index, numRuns: STEPS });
      const tally: Tally = { statuses: {}, skipped: 0, readKeyReason: 0, requests: 0 };
      let created = 0;
      const world: World = { c, rows: (await rowsOf(presetTable(c))) as unknown as Row[], fresh: () => `c${(created += 1)}` };
      for (const [i, step] of steps.entries()) {
        const d = new Draws(step.seed);
        const request = makeRequest(d, world, callers[step.caller]!, step.kind);
        if (setsOwnerToOther(request, c)) {
          tally.skipped += 1;
          continue;
        }
        const context = `step ${i} of ${STEPS}`;
        const [preset, rules] = await Promise.all([send(request, presetTable(c)), send(request, rulesTable(c))]);
        compare(c, request, context, preset, rules, tally);
        const [presetNext, rulesNext] = [preset.body?.next, rules.body?.next];
        if (request.nextPage && typeof presetNext === 'string' && typeof rulesNext === 'string') {
          const [presetPage, rulesPage] = await Promise.all([send(request, presetTable(c), presetNext), send(request, rulesTable(c), rulesNext)]);
          compare(c, request, `${context}, its next page (after=<each table's cursor>)`, presetPage, rulesPage, tally);
        }
        if (request.writes) {
          const [presetRows, rulesRows] = await Promise.all([rowsOf(presetTable(c)), rowsOf(rulesTable(c))]);
          expect(rulesRows, `seed ${SEED}, ${context}: the tables differ after ${describeRequest(request)}`).toEqual(presetRows);
          world.rows = presetRows as unknown as Row[];
        }
      }
      console.info(`rules-presets ${c.key}: ${tally.requests} compared answers, statuses ${JSON.stringify(tally.statuses)}, ${tally.skipped} requests left out (owner column set to another user), ${tally.readKeyReason} read-key 403s differing only by reason`);
      // The run reached every kind of answer, not only refusals.
      for (const status of ['200', '201', '400', '403', '404']) expect(tally.statuses[status] ?? 0, `status ${status} in ${JSON.stringify(tally.statuses)}`).toBeGreaterThan(0);
    },
    60_000,
  );
});
