/**
 * A project's context repositories (docs/architecture.md#the-runs-phases): up to `MAX_CONTEXT_REPOSITORIES` per project,
 * each under a name unique in it. A token is sealed with the server's key exactly as the project's
 * own (`projects.ts`), bound to the project and the name, so a copied ciphertext opens nowhere else.
 */
import {
  CONTEXT_REPOSITORY_NAME,
  type ContextRepository,
  MAX_CONTEXT_REPOSITORIES,
} from '../domain/context-repository.js';
import { AppError } from '../domain/errors.js';
import { ID_PATTERN } from '../domain/ids.js';
import type { CodeHostKind } from '../domain/project.js';
import type { Db } from './db.js';
import type { HostToken } from './projects.js';
import type { ContextRepositoriesTable } from './schema.js';

/** A context repository to add; its `repository` already checked (`operations/context-repositories.ts`). */
export interface NewContextRepository {
  projectId: string;
  name: string;
  repository: string;
  ref: string | null;
  host: CodeHostKind;
}

/** What a sealed token is bound to: its project and name, so it opens for that row only. */
const tokenContext = (projectId: string, name: string) => `context-repository ${projectId} ${name}`;

function toContextRepository(row: ContextRepositoriesTable): ContextRepository {
  return {
    projectId: row.project_id,
    name: row.name,
    repository: row.repository,
    ref: row.ref,
    host: row.host as CodeHostKind,
    hasToken: row.token_sealed !== null,
    createdAt: row.created_at,
  };
}

const invalid = (field: string, message: string) =>
  new AppError('invalid_request', message, { details: [{ path: field, message }] });

export function contextRepositoryQueries(db: Db) {
  return {
    /** The project's context repositories, by name. */
    async list(projectId: string): Promise<ContextRepository[]> {
      if (!ID_PATTERN.test(projectId)) return [];
      const rows = await db
        .read()
        .selectFrom('context_repositories')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('name')
        .execute();
      return rows.map(toContextRepository);
    },

    /**
     * Adds one, with `token` sealed into the same row. Refuses (`invalid_request`, the detail
     * naming the field) a bad name, a name the project already has, and an eleventh repository;
     * counted inside the insert's transaction, so two adds at once cannot both pass the limit.
     */
    async add(input: NewContextRepository, token?: HostToken): Promise<ContextRepository> {
      if (!CONTEXT_REPOSITORY_NAME.test(input.name) || input.name.length > 64)
        throw invalid(
          'name',
          `The name "${input.name}" is not allowed: use lower-case letters, digits and "-" (starting with a letter or digit), at most 64 characters.`,
        );
      const row: ContextRepositoriesTable = {
        project_id: input.projectId,
        name: input.name,
        repository: input.repository,
        ref: input.ref,
        host: input.host,
        token_sealed: token
          ? token.secrets.seal(token.token, tokenContext(input.projectId, input.name))
          : null,
        created_at: new Date().toISOString(),
      };
      await db.write(async (trx) => {
        // PostgreSQL runs writes side by side: adds to one project take turns on its row.
        const project = db.capabilities.serializedWrites
          ? trx.selectFrom('projects').select('id').where('id', '=', input.projectId)
          : db.lockForUpdate(trx.selectFrom('projects').select('id').where('id', '=', input.projectId), {
              noKey: true,
            });
        if (!(await project.executeTakeFirst()))
          throw new AppError('project_not_found', `No project ${input.projectId}.`);
        const names = (
          await trx
            .selectFrom('context_repositories')
            .select('name')
            .where('project_id', '=', input.projectId)
            .execute()
        ).map((existing) => existing.name);
        if (names.includes(input.name))
          throw invalid('name', `The project already has a context repository named "${input.name}".`);
        if (names.length >= MAX_CONTEXT_REPOSITORIES)
          throw invalid(
            'name',
            `A project has at most ${MAX_CONTEXT_REPOSITORIES} context repositories; remove one first.`,
          );
        await trx.insertInto('context_repositories').values(row).execute();
      });
      return toContextRepository(row);
    },

    /** Removes one; false when the project has none of that name. */
    async remove(projectId: string, name: string): Promise<boolean> {
      const result = await db.write((trx) =>
        trx
          .deleteFrom('context_repositories')
          .where('project_id', '=', projectId)
          .where('name', '=', name)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * The repository's token in plain text, or null when it has none. For git's askpass only: the
     * value must never reach a log, an event, an error or a response.
     */
    async token(projectId: string, name: string, secrets: HostToken['secrets']): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('context_repositories')
        .select('token_sealed')
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.token_sealed ? secrets.open(row.token_sealed, tokenContext(projectId, name)) : null;
    },
  };
}
