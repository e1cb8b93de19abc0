import type { Knex } from 'knex';

/**
 * Access rules (issue 24): a fourth policy, `rules`, whose expressions are stored beside it as text, one per operation
 * (`{ read, create, update, updateCheck, delete }`; an absent member refuses the operation). Presets store none: their
 * rules are their expansions, computed.
 *
 * `_basalt_refuse(id)` aborts the statement it runs in with SQLSTATE `BR403` and the id as its message: a write whose
 * rule is checked on the row as stored (create, `updateCheck`) undoes itself in the same statement, so a refused bulk
 * insert writes nothing and costs no transaction of its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE _policies ADD COLUMN rules jsonb`);
  await knex.raw(`ALTER TABLE _policies DROP CONSTRAINT _policies_policy_check`);
  await knex.raw(`ALTER TABLE _policies ADD CONSTRAINT _policies_policy_check CHECK (policy IN ('owner-scoped', 'public-read', 'private', 'rules'))`);
  await knex.raw(`ALTER TABLE _policies ADD CONSTRAINT _policies_rules_check CHECK ((policy = 'rules') = (rules IS NOT NULL))`);
  await knex.raw(`
    CREATE FUNCTION _basalt_refuse(id text) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = 'BR403', MESSAGE = id;
    END
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS _basalt_refuse(text)`);
  await knex.raw(`UPDATE _policies SET policy = 'private', rules = NULL WHERE policy = 'rules'`);
  await knex.raw(`ALTER TABLE _policies DROP CONSTRAINT IF EXISTS _policies_rules_check`);
  await knex.raw(`ALTER TABLE _policies DROP CONSTRAINT _policies_policy_check`);
  await knex.raw(`ALTER TABLE _policies ADD CONSTRAINT _policies_policy_check CHECK (policy IN ('owner-scoped', 'public-read', 'private'))`);
  await knex.raw(`ALTER TABLE _policies DROP COLUMN rules`);
}
