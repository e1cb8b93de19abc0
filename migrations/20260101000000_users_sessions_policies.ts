import type { Knex } from 'knex';

/**
 * The system tables. Their names (`users`, `sessions`) and the `_` prefix keep them out of the generated API.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.text('id').primary();
    table.text('email').notNullable().unique({ indexName: 'users_email_key' });
    table.text('password_hash').notNullable();
    table.text('role').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("role in ('owner', 'member')", [], 'users_role_check');
  });
  // At most one owner, ever: the loser of a race for the first signup hits this index and becomes a member.
  await knex.raw(`CREATE UNIQUE INDEX users_single_owner ON users ((true)) WHERE role = 'owner'`);

  await knex.schema.createTable('sessions', (table) => {
    table.text('id').primary();
    table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    // sha256 of the refresh token, hex: the token itself is never stored.
    table.text('token_hash').notNullable().unique({ indexName: 'sessions_token_hash_key' });
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id'], 'sessions_user_id_idx');
  });

  await knex.schema.createTable('_policies', (table) => {
    table.text('table_name').primary();
    table.text('policy').notNullable();
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("policy in ('owner-scoped', 'public-read', 'private')", [], '_policies_policy_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('_policies');
  await knex.schema.dropTableIfExists('sessions');
  await knex.schema.dropTableIfExists('users');
}
