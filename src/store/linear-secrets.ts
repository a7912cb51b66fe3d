/**
 * The signing secret of each project's Linear webhook (docs/automations.md, "Linear"): Linear
 * makes it when the webhook is made, an admin sets it here; it is sealed at rest, bound to the
 * project (a sealed secret copied to another project's row does not open), and opened only for
 * the receiver's signature check.
 */
import type { Db } from './db.js';
import type { SecretBox } from './secrets.js';

const linearContext = (projectId: string) => `${projectId}:linear-secret`;

export function linearSecretQueries(db: Db) {
  return {
    /** Sets (or replaces) the project's Linear secret; the one it had stops working at once. */
    async set(projectId: string, secret: string, secrets: SecretBox): Promise<void> {
      const row = {
        project_id: projectId,
        secret_sealed: secrets.seal(secret, linearContext(projectId)),
        updated_at: new Date().toISOString(),
      };
      await db.writeStatement((executor) =>
        executor
          .insertInto('linear_secrets')
          .values(row)
          .onConflict((conflict) =>
            conflict
              .column('project_id')
              .doUpdateSet({ secret_sealed: row.secret_sealed, updated_at: row.updated_at }),
          )
          .execute(),
      );
    },

    /** Removes the project's Linear secret: its Linear deliveries are refused from now on. True when it had one. */
    async clear(projectId: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor.deleteFrom('linear_secrets').where('project_id', '=', projectId).executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },

    /** Whether the project has a Linear secret, without opening it. */
    async has(projectId: string): Promise<boolean> {
      const row = await db
        .read()
        .selectFrom('linear_secrets')
        .select('project_id')
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * The project's Linear secret in plain text, or null. For the receiver's signature check
     * only: never a log, an event, an error or a response.
     */
    async secret(projectId: string, secrets: SecretBox): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('linear_secrets')
        .select('secret_sealed')
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row ? secrets.open(row.secret_sealed, linearContext(projectId)) : null;
    },
  };
}
