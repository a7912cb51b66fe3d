import type { Kysely } from 'kysely';

/**
 * What the dashboard keeps:
 * - `admin_sessions`: signed-in browsers. The id is the SHA-256 of the cookie's value, so a copy
 *   of the database cannot be turned into a session.
 * - `settings`: small server-wide values; for now the admin password's scrypt hash, so a password
 *   generated at first start survives restarts and is shared by every process on the database.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
