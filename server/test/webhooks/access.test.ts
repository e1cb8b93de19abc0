import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTable, signUp, startHarness, type Account, type Harness } from '../harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';

/**
 * A webhook is the owner's (API.md, Webhooks): it receives every change of the tables it follows, whoever wrote it,
 * whatever the table's policy or rules say about other callers (owner-scoped rows of several members, a private
 * table written with psql, rules that hide each member's rows from the other), each `record` as `/api` answers it.
 */

let h: Harness;
let owner: Account;
let alice: Account;
let bob: Account;
let psql: pg.Client;
let receiver: WebhookReceiver;

beforeAll(async () => {
  h = await startHarness({ limits: false, webhooks: { allowPrivateTargets: true } });
  owner = await signUp(h);
  [alice, bob] = [await signUp(h), await signUp(h)];
  psql = await h.sql();
  await createTable(h, owner, { name: 'todos', policy: 'owner-scoped', columns: [{ name: 'user_id', type: 'text' }, { name: 'title', type: 'text' }] });
  await createTable(h, owner, { name: 'vault', policy: 'private', columns: [{ name: 'note', type: 'text' }] });
  await createTable(h, owner, {
    name: 'letters',
    policy: 'rules',
    rules: { read: 'user_id = @auth.id', create: 'user_id = @auth.id' },
    columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }],
  });
  receiver = await startWebhookReceiver();
  const made = await h.request().post('/admin/webhooks').set(owner.auth).send({ url: receiver.url, tables: '*' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  receiver.secrets = [made.body.data.secret];
});
afterAll(async () => {
  await receiver?.close();
  await h.close();
});

describe('a webhook sees every row, whoever may read it', () => {
  it('delivers owner-scoped, private and rules rows of several users, each as /api answers it', async () => {
    const post = async (account: Account, table: string, body: Record<string, unknown>) => {
      const response = await h.request().post(`/api/${table}`).set(account.auth).send(body);
      expect(response.status).toBe(201);
      return response.body.data as Record<string, unknown>;
    };
    const written = [
      await post(alice, 'todos', { title: 'alice' }),
      await post(bob, 'todos', { title: 'bob' }),
      await post(alice, 'letters', { user_id: alice.id, body: 'to alice' }),
      await post(bob, 'letters', { user_id: bob.id, body: 'to bob' }),
    ];
    await psql.query(`INSERT INTO vault (id, note) VALUES ('v1', 'by psql')`);
    // Neither member can read the other's rows, nor anything of the vault.
    expect((await h.request().get(`/api/letters/${written[3]!.id}`).set(alice.auth)).status).toBe(404);
    expect((await h.request().get(`/api/todos/${written[1]!.id}`).set(alice.auth)).status).toBe(404);
    expect((await h.request().get('/api/vault').set(bob.auth)).status).toBe(403);

    const got = await receiver.waitForDistinct(5);
    expect(got.every((r) => r.verified)).toBe(true);
    const records = got.map((r) => ({ table: r.payload.table, type: r.payload.type, record: r.payload.record }));
    expect(records).toEqual([
      { table: 'todos', type: 'insert', record: written[0] },
      { table: 'todos', type: 'insert', record: written[1] },
      { table: 'letters', type: 'insert', record: written[2] },
      { table: 'letters', type: 'insert', record: written[3] },
      { table: 'vault', type: 'insert', record: expect.objectContaining({ id: 'v1', note: 'by psql' }) },
    ]);
  });
});
