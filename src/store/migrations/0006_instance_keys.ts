import type { Kysely } from 'kysely';

const COLUMNS = [
  'id',
  'project_id',
  'name',
  'prefix',
  'key_hash',
  'scopes',
  'ip_allowlist',
  'expires_at',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

/**
 * Instance keys: an API key whose `project_id` is null works on every project (the hosted API's
 * organisation keys). The column loses its NOT NULL by rebuilding the table, since SQLite cannot
 * drop a constraint in place; the same rebuild runs on PostgreSQL, so there is one migration to
 * read. The keys table is small, and nothing refers to it.
 *
 * The rebuild is one transaction: Kysely runs PostgreSQL migrations in one already, but not
 * SQLite's (no transactional DDL in its adapter), and a rebuild cut short between the drop and
 * the rename would lose every key. Run again after a crash that came after the commit but before
 * Kysely recorded the migration, it rebuilds the rebuilt table: same result.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const rebuild = async (trx: Kysely<any>) => {
    await trx.schema
      .createTable('api_keys_next')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // Null: the key works on every project.
      .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('ip_allowlist', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await trx
      .insertInto('api_keys_next')
      .columns(COLUMNS)
      .expression(trx.selectFrom('api_keys').select(COLUMNS))
      .execute();
    await trx.schema.dropTable('api_keys').execute();
    await trx.schema.alterTable('api_keys_next').renameTo('api_keys').execute();
    await trx.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();
  };
  if (db.isTransaction) await rebuild(db);
  else await db.transaction().execute(rebuild);
}
