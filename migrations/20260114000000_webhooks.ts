import type { Knex } from 'knex';
import { CAPTURE } from './20260107000000_write_tracking.js';

/**
 * Webhooks (issue 29, server/src/webhooks/): every committed change of a chosen table delivered to other services.
 *
 * - The update capture logs the old rows too (`_basalt_changes.old`, the same order as `record`, paired by `id`;
 *   null where the id changed): the capture trigger of updates is made again on every tracked table with both
 *   transition tables, keeping whether it was on.
 * - `_basalt_change_holds`: consumers of the change log that need it kept from a transaction on; the trim deletes no
 *   change at or past any hold (the webhooks' enqueuer holds it from its position while an enabled webhook exists).
 * - `_basalt_webhooks`: the owner's webhooks; secrets sealed (auth/sealed.ts); `since`, the transaction from which its
 *   changes are delivered (creation, or being enabled again).
 * - `_basalt_webhook_position`: how far the enqueuer read the log: every change of a transaction below `xid` is
 *   enqueued, and with `change_id` those of transaction `xid` up to (`change_id`, `n`) too.
 * - `_basalt_webhook_deliveries`: the durable queue. `id` is the `webhook-id`; `seq` orders the deliveries of one row
 *   (`row_key`) to one webhook: the next waits while an earlier one is pending or failed.
 */

const TRACKED = `SELECT c.relname AS table_name, t.tgenabled <> 'D' AS enabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                  WHERE t.tgname = '_basalt_capture_u' AND c.relnamespace = 'public'::regnamespace`;
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

export const CAPTURE_WITH_OLD = `
  CREATE OR REPLACE FUNCTION _basalt_capture() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER AS $$
  BEGIN
    IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'i', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_new w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
      INSERT INTO public._basalt_changes (table_name, op, record, old)
      SELECT TG_TABLE_NAME, 'u', pg_catalog.jsonb_agg(n.j), pg_catalog.jsonb_agg(o.j)
        FROM (SELECT pg_catalog.to_jsonb(w.*) AS j FROM _basalt_new w) n
        LEFT JOIN (SELECT pg_catalog.to_jsonb(w.*) AS j FROM _basalt_old w) o
          ON (o.j OPERATOR(pg_catalog.->) 'id') OPERATOR(pg_catalog.=) (n.j OPERATOR(pg_catalog.->) 'id')
      HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSIF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
      INSERT INTO public._basalt_changes (table_name, op, record)
      SELECT TG_TABLE_NAME, 'd', pg_catalog.jsonb_agg(pg_catalog.to_jsonb(w.*)) FROM _basalt_old w HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
    ELSE
      INSERT INTO public._basalt_changes (table_name, op) VALUES (TG_TABLE_NAME, 't');
    END IF;
    RETURN NULL;
  END $$`;

async function remakeUpdateCapture(knex: Knex, withOld: boolean): Promise<void> {
  const tables = await knex.raw<{ rows: Array<{ table_name: string; enabled: boolean }> }>(TRACKED);
  const transitions = withOld ? 'OLD TABLE AS _basalt_old NEW TABLE AS _basalt_new' : 'NEW TABLE AS _basalt_new';
  for (const { table_name: table, enabled } of tables.rows) {
    await knex.raw(`DROP TRIGGER _basalt_capture_u ON ${quoted(table)}`);
    await knex.raw(`CREATE TRIGGER _basalt_capture_u AFTER UPDATE ON ${quoted(table)} REFERENCING ${transitions} FOR EACH STATEMENT EXECUTE FUNCTION _basalt_capture()`);
    if (!enabled) await knex.raw(`ALTER TABLE ${quoted(table)} DISABLE TRIGGER _basalt_capture_u`);
  }
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE _basalt_changes ADD COLUMN old jsonb`);
  await remakeUpdateCapture(knex, true);
  await knex.raw(CAPTURE_WITH_OLD);
  await knex.raw(`CREATE TABLE _basalt_change_holds (name text PRIMARY KEY, xid xid8 NOT NULL)`);
  await knex.raw(`
    CREATE TABLE _basalt_webhooks (
      id text PRIMARY KEY,
      url text NOT NULL,
      tables text[],
      events text[] NOT NULL,
      filter text,
      headers jsonb NOT NULL DEFAULT '{}',
      enabled boolean NOT NULL DEFAULT true,
      secret bytea NOT NULL,
      previous_secret bytea,
      previous_until timestamptz,
      since xid8 NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await knex.raw(`
    CREATE TABLE _basalt_webhook_position (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      xid xid8 NOT NULL,
      change_id bigint,
      n integer
    )`);
  await knex.raw(`INSERT INTO _basalt_webhook_position (xid) VALUES (pg_snapshot_xmin(pg_current_snapshot()))`);
  await knex.raw(`
    CREATE TABLE _basalt_webhook_deliveries (
      id text PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      webhook_id text NOT NULL REFERENCES _basalt_webhooks (id) ON DELETE CASCADE,
      table_name text NOT NULL,
      row_key text,
      type text NOT NULL,
      body text NOT NULL,
      changed_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_until timestamptz,
      last_status integer,
      last_error text,
      latency_ms integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      delivered_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  // The lease's order (one enqueue round's deliveries share their next_attempt_at: seq must be in the index too).
  await knex.raw(`CREATE INDEX _basalt_webhook_deliveries_due ON _basalt_webhook_deliveries (next_attempt_at, seq) WHERE status IN ('pending', 'failed')`);
  await knex.raw(`CREATE INDEX _basalt_webhook_deliveries_row ON _basalt_webhook_deliveries (webhook_id, table_name, row_key, seq) WHERE status IN ('pending', 'failed')`);
  await knex.raw(`CREATE INDEX _basalt_webhook_deliveries_list ON _basalt_webhook_deliveries (webhook_id, seq)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS _basalt_webhook_deliveries`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_webhook_position`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_webhooks`);
  await knex.raw(`DROP TABLE IF EXISTS _basalt_change_holds`);
  await knex.raw(CAPTURE);
  await remakeUpdateCapture(knex, false);
  await knex.raw(`ALTER TABLE _basalt_changes DROP COLUMN old`);
}
