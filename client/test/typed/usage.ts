/**
 * Typed usage of the built library, as an app writes it. Never run: `typed.test.ts` compiles it with tsc and expects
 * no diagnostics, so every `@ts-expect-error` line below must really be a compile error (else tsc reports the
 * directive as unused).
 */
import { createClient, type ListResult } from '@basalt/client';
import type { Database } from './database.js';

type Todo = Database['todos']['Row'];

const client = createClient<Database>('http://localhost:3000', 'anon-key', { storageKey: 'typed-app' });

export async function correctCalls(): Promise<Todo[]> {
  const page: ListResult<Todo> = await client.from('todos').list({
    limit: 10,
    offset: 0,
    order: ['score.desc', 'createdAt.asc'],
    filter: { done: false, score: 3, due: new Date(), title: 'x' },
  });
  const created = await client.from('todos').create({ title: 'typed', score: null, meta: { nested: [1, 'two'] } });
  const id: string = created.id;
  const done: boolean = created.done;
  const updated = await client.from('todos').upsert(id, { done: !done });
  const fetched: Todo = await client.from('todos').get(updated.id);
  const removed: Todo = await client.from('todos').delete(fetched.id);
  const tag = await client.from('tags').create({ name: 'urgent' });
  const tagName: string = tag.name;
  const owned = await client.admin.records('todos', { filter: { user_id: 'u1' }, order: 'title.asc' });
  await client.admin.from('tags').upsert(tag.id, { name: tagName });
  const next: string | null = page.next;
  const total: number = page.total;
  return [...page.data, removed, ...owned.data, ...(next && total ? [] : [])];
}

export async function queryLanguage(): Promise<void> {
  const todos = client.from('todos');
  const ranged = await todos.list({
    filter: { score: { gte: 10, lt: 20, in: [1, 2] }, title: { like: 'a*', ilike: '*B*', search: 'big cat' }, done: { is: false }, due: { gt: new Date(), is: 'notnull' } },
    order: 'due.desc',
    after: null,
    count: 'estimated',
  });
  const exact: boolean = ranged.totalExact;
  const chosen = await todos.list({ select: ['id', 'title'], count: 'none', filter: { meta: { eq: '{"a":1}' }, score: null } });
  const title: string = chosen.data[0]!.title;
  const id: string = chosen.data[0]!.id;
  for await (const row of todos.listAll({ select: ['score'], filter: { done: true } })) {
    const score: number | null = row.score;
    // @ts-expect-error listAll with a select yields only the chosen columns
    console.log(row.title, score);
  }
  const many = await todos.createMany([{ title: 'one' }, { title: 'two', score: 2 }]);
  const first: string = many[0]!.id;
  const table = await client.admin.indexes.create('todos', { columns: ['title'], kind: 'search' });
  await client.admin.indexes.drop('todos', table.indexes[0]!.name);
  const adminRow = await client.admin.from('todos').get(first);
  console.log(exact, title, id, adminRow.title);
}

export async function embeds(): Promise<void> {
  const page = await client.from('todos').list({ select: ['id', 'title', { tags: ['name', { todo: ['done'] }] }], embedOptions: { tags: { order: 'name.asc', limit: 3 } } });
  const todo = page.data[0]!;
  const title: string = todo.title;
  const tagNames: string[] = todo.tags.map((tag) => tag.name);
  const backDone: boolean | undefined = todo.tags[0]?.todo?.done;
  const tag = await client.from('tags').get('t1', { select: ['name', { todo: '*' }] });
  const owner: string | undefined = tag.todo?.user_id;
  const whole = await client.from('tags').get('t1');
  const plain: string | null = whole.todo_id;
  // @ts-expect-error a to-one embed may be null
  const notNull: string = tag.todo.title;
  // @ts-expect-error an embed carries only the columns it selects
  console.log(todo.tags[0]?.todo_id);
  // @ts-expect-error todos has no relation named nope
  await client.from('todos').list({ select: ['id', { nope: '*' }] });
  // @ts-expect-error an embed selects columns of the related table
  await client.from('todos').list({ select: [{ tags: ['title'] }] });
  console.log(title, tagNames, backDone, owner, plain, notNull);
}

export async function wrongQueries(): Promise<void> {
  const todos = client.from('todos');
  // @ts-expect-error like is for text columns, not numbers
  await todos.list({ filter: { score: { like: '1*' } } });
  // @ts-expect-error gt does not apply to boolean columns
  await todos.list({ filter: { done: { gt: true } } });
  // @ts-expect-error is true/false is for boolean columns only
  await todos.list({ filter: { score: { is: true } } });
  // @ts-expect-error an in list holds values of the column's type
  await todos.list({ filter: { score: { in: ['high'] } } });
  // @ts-expect-error an unknown operator
  await todos.list({ filter: { score: { between: [1, 2] } } });
  // @ts-expect-error json columns take eq and is only
  await todos.list({ filter: { meta: { neq: 'x' } } });
  // @ts-expect-error select names only columns of the table
  await todos.list({ select: ['id', 'titel'] });
  const chosen = await todos.list({ select: ['id'] });
  // @ts-expect-error a select narrows the record type
  console.log(chosen.data[0]?.title);
  const uncounted = await todos.list({ count: 'none' });
  // @ts-expect-error count none answers no total
  const total: number = uncounted.total;
  // @ts-expect-error createMany takes Insert records
  await todos.createMany([{ done: true }]);
  console.log(total);
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error 'titel' is not a column of todos
  await client.from('todos').create({ titel: 'typo' });
  // @ts-expect-error done is a boolean, not a string
  await client.from('todos').create({ title: 'x', done: 'yes' });
  // @ts-expect-error title is required on insert
  await client.from('todos').create({ done: true });
  // @ts-expect-error there is no table todoz
  client.from('todoz');
  // @ts-expect-error filter on a column that does not exist
  await client.from('todos').list({ filter: { titel: 'x' } });
  // @ts-expect-error a filter value of the wrong type
  await client.from('todos').list({ filter: { score: 'high' } });
  // @ts-expect-error order by a column that does not exist
  await client.from('todos').list({ order: 'nope.asc' });
  // @ts-expect-error createdAt is server-managed: not part of Update
  await client.from('todos').upsert('id', { createdAt: 'now' });
  const row = await client.from('todos').get('id');
  // @ts-expect-error reading a column that does not exist
  console.log(row.titel);
  // @ts-expect-error a table's columns do not leak into another
  await client.from('tags').create({ name: 'n', title: 't' });
}

export async function untypedCalls(): Promise<unknown> {
  // Without a Database type every table and column is allowed, and values are `unknown` until checked.
  const untyped = createClient('http://localhost:3000');
  const rows = await untyped.from('anything').list({ filter: { whatever: 1 }, order: 'whatever.desc' });
  await untyped.from('anything').create({ any: 'column' });
  return rows.data[0]?.whatever;
}

export async function queryLanguagePart2(): Promise<void> {
  const todos = client.from('todos');
  const patched = await todos.update('t1', { done: true }, { select: ['id', 'done'] });
  const patchedDone: boolean = patched.done;
  // @ts-expect-error update with a select answers only the chosen columns
  console.log(patched.title);
  const changed = await todos.updateWhere({ filter: { score: { lt: 3 } }, where: "title = 'x'" }, { done: true }, { limit: 10 });
  const changedTitle: string = changed[0]!.title;
  const counted = await todos.updateWhere({ filter: { done: false } }, { score: 1 }, { dryRun: true });
  const matched: number = counted.matched;
  const removed = await todos.deleteWhere({ filter: { done: true } }, { select: ['id'] });
  const removedId: string = removed[0]!.id;
  const removedAll = await todos.deleteWhere({}, { all: true, dryRun: true });
  const upserted = await client.from('tags').upsertBy('name', { name: 'urgent' });
  const created: boolean = upserted.created;
  const tagName: string = upserted.record.name;
  const tags = await client.from('tags').upsertManyBy('name', [{ name: 'a' }, { name: 'b' }], { select: ['id'] });
  const tagId: string = tags[0]!.id;
  const groups = await todos.aggregate({ groupBy: ['done'], count: true, sum: { total: 'score' }, avg: { mean: 'score' }, max: { last: 'due' } }, { order: ['count.desc', 'last.asc'], filter: { score: { gte: 1 } } });
  const group = groups.data[0]!;
  const groupDone: boolean = group.done;
  const groupCount: number = group.count;
  const groupTotal: number | null = group.total;
  const last: string | null = group.last;
  const next: string | null = groups.next;
  for await (const row of todos.aggregateAll({ count: 'n', min: { first: 'title' } })) {
    const n: number = row.n;
    const first: string | null = row.first;
    console.log(n, first);
  }
  const csv: string = await todos.exportCsv({ filter: { done: false }, select: ['id', 'title'], order: 'title.asc' });
  const imported = await todos.importCsv(csv, { onConflict: 'id' });
  const groupsCsv: string = await todos.exportAggregateCsv({ groupBy: ['done'], count: true }, { order: 'count.desc' });
  console.log(groupsCsv);
  console.log(patchedDone, changedTitle, matched, removedId, removedAll.matched, created, tagName, tagId, groupDone, groupCount, groupTotal, last, next, imported[0]!.title);
}

export async function wrongPart2Calls(): Promise<void> {
  const todos = client.from('todos');
  // @ts-expect-error sum takes numeric columns only
  await todos.aggregate({ sum: { t: 'title' } });
  // @ts-expect-error min and max take no boolean column
  await todos.aggregate({ min: { m: 'done' } });
  // @ts-expect-error order names a group column, the count or an alias
  await todos.aggregate({ groupBy: ['done'], count: true }, { order: 'title.asc' });
  // @ts-expect-error no such column to group by
  await todos.aggregate({ groupBy: ['nope'], count: true });
  const groups = await todos.aggregate({ groupBy: ['done'], count: true });
  // @ts-expect-error a group carries its group columns and aggregates only
  console.log(groups.data[0]!.title);
  // @ts-expect-error a change by filter takes no order
  await todos.updateWhere({ order: 'title.asc' }, { done: true });
  // @ts-expect-error the patch is the table's Update
  await todos.updateWhere({ filter: { done: false } }, { done: 'yes' });
  // @ts-expect-error upsertBy names a column of the table
  await client.from('tags').upsertBy('nmae', { name: 'x' });
  // @ts-expect-error CSV has no embeds
  await todos.exportCsv({ select: ['id', { tags: ['name'] }] });
}
