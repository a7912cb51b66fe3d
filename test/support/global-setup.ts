import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of a reachable PostgreSQL, or null when the PostgreSQL suites are skipped. */
    postgresUrl: string | null;
  }
}

/**
 * Probes PostgreSQL once for the whole run. Without it the PostgreSQL suites are skipped with one
 * line of output; with AGENTJOBS_REQUIRE_POSTGRES=1 (CI) its absence fails the run instead.
 */
export default async function setup(project: TestProject) {
  const url = process.env.AGENTJOBS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('postgresUrl', url);
  } catch (error) {
    if (process.env.AGENTJOBS_REQUIRE_POSTGRES === '1') {
      throw new Error(
        `PostgreSQL is required (AGENTJOBS_REQUIRE_POSTGRES=1) but ${url} is not reachable: ${error}`,
      );
    }
    console.log(`PostgreSQL not reachable at ${url}: skipping the PostgreSQL suites.`);
    project.provide('postgresUrl', null);
  } finally {
    await client.end().catch(() => {});
  }
}
