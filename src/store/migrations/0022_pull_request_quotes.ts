import type { Kysely } from 'kysely';

/**
 * What a pull request's description quotes of an automation's prompt (docs/api.md,
 * automations): text rendered from a context repository (a diff, commit messages, pull requests, a
 * comment) may be private to it, and the content repository's pull request may be public.
 * - `projects.quote_context`: 1 quotes the prompt as rendered; 0 (the default) quotes the
 *   template with that text left out, after a line naming what triggered the run.
 * - `jobs.pull_request_prompt`: that quotable text, made with the job; null when nothing of the
 *   prompt came from a context repository (the prompt is quoted as it is).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('quote_context', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('pull_request_prompt', 'text').execute();
}
